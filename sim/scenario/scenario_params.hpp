// The whole scenario file as one declared table (STYLE.md rule 10): the top-level keys and `cluster:` are
// declared here, each other section by the layer that owns it (workload, collectives, facility). load_scenario
// reads through it; docs/scenario.md's key tables, `clustersim schema scenario`, sweep-axis checks and the
// planner's forms read its schema.
#pragma once

#include <optional>

#include "sim/serving/serving_config.hpp"

#include <string>

#include "sim/collectives/network_options.hpp"
#include "sim/core/error.hpp"
#include "sim/facility/facility_config.hpp"
#include "sim/input/param_table.hpp"
#include "sim/workload/model_spec.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace cs {

/// A reference to another input file (a topology or profile) as written, with where it was written.
struct FileRef {
  std::string name;
  SourceLocation where;
  std::string key_path;
};

/// What a scenario file says, before its references (topology, profile, price ids) are resolved.
struct ScenarioInput {
  std::string name;
  std::string description;
  ModelSpec model;
  int gpus = 0;
  FileRef topology;
  FileRef profile;
  ParallelPlan plan;
  TrainingConfig training;
  NetworkOptions network;
  FacilityConfig facility;
  std::optional<FileRef> band_basis;  ///< error_band_basis: the residual file the step-time band rests on
  std::optional<ServingConfig> serving;  ///< an inference service instead of a training job
  SourceLocation serving_trace_at;       ///< where serving.load.trace was written (its file is resolved later)
};

/// The scenario file's table (built once; immutable, shared by threads).
[[nodiscard]] const ParamTable<ScenarioInput>& scenario_params();
/// Its schema: every key of a scenario file.
[[nodiscard]] const ParamSection& scenario_schema();

}  // namespace cs
