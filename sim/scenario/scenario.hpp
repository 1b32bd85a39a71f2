// A scenario: one training job on one cluster, as a user writes it in a YAML file (docs/scenario.md).
// Loading checks everything (keys, units, types, divisibility, that the plan fits the cluster) before
// anything runs.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <string>

#include "sim/input/input_node.hpp"

#include "sim/collectives/network_options.hpp"
#include "sim/scenario/band_basis.hpp"
#include "sim/serving/serving_config.hpp"
#include "sim/facility/facility_config.hpp"
#include "sim/hardware/device_profile.hpp"
#include "sim/topology/topology.hpp"
#include "sim/workload/model_spec.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace cs {

struct Scenario {
  std::string file;
  std::string name;
  std::string description;
  ModelSpec model;
  ParallelPlan plan;
  TrainingConfig training;
  int gpus = 0;
  Topology topology{"", NodeSpec{}, 0};
  DeviceProfile profile;
  NetworkOptions network;    ///< communication model, algorithm overrides, calibration (defaults when absent)
  FacilityConfig facility;   ///< power, cooling, reliability and cost settings (defaults when absent)
  std::string pricebook;     ///< price-book file; empty: data/pricebook.yaml
  /// What the step-time band rests on (error_band_basis, read by the loader); never null after loading.
  std::shared_ptr<const ResidualSet> band_basis;
  /// An inference service (the `serving:` section) instead of a training job: `plan` and `training` are then
  /// unused, and run_scenario simulates requests (sim/serving).
  std::optional<ServingConfig> serving;
};

/// Reads and checks `path`; `profile_override` (a name or file), when not empty, replaces cluster.profile.
/// Throws InputError ("file:line:column: key.path: what is wrong") on any problem.
[[nodiscard]] Scenario load_scenario(const std::string& path, const std::string& profile_override = "");
/// The same for scenario YAML held in memory (a sweep point, the planner's editor); `name` stands in for the
/// file name in messages.
[[nodiscard]] Scenario load_scenario_text(const std::string& yaml_text, const std::string& name,
                                          const std::string& profile_override = "");
/// Every price-book id the facility section names must exist in the scenario's price book (`pricebook`, else
/// the shipped one), and every override must fit its entry: a misspelt id is a located InputError, not a table
/// of zero dollars later. load_scenario calls it; call it again after changing `pricebook`.
void check_price_references(const Scenario& sc);
/// The same for an already parsed document (reads every key of `root`, rejects unknown ones).
[[nodiscard]] Scenario load_scenario(const InputNode& root, const std::string& profile_override = "");

}  // namespace cs
