// `parallelism: search` in a scenario: the plan is left to the planner. The scenario loader knows only
// concrete plans, so this hook stands a placeholder plan in (dp = every GPU, one sequence per micro-batch,
// which passes every divisibility check) while the loader checks everything else, then restores the
// scenario's own batch sizes. The rest of the scenario keeps the loader's located errors.
#pragma once

#include <string>

#include "sim/scenario/scenario.hpp"

namespace cs {

struct SearchableScenario {
  Scenario scenario;
  bool search = false;  ///< the scenario asked for `parallelism: search`; scenario.plan is a placeholder
};

/// True when the YAML text's top-level `parallelism:` is the scalar `search`.
[[nodiscard]] bool asks_for_plan_search(const std::string& yaml_text);

/// Loads scenario YAML text (load_scenario_text), accepting `parallelism: search`.
[[nodiscard]] SearchableScenario load_searchable_scenario(const std::string& yaml_text, const std::string& name);
/// The same for a file.
[[nodiscard]] SearchableScenario load_searchable_scenario_file(const std::string& path);

/// `text` with its top-level `parallelism:` replaced by the placeholder plan (unchanged when it does not ask
/// for a search or when cluster.gpus / training.global_batch are not plain integers, which the loader then
/// reports).
[[nodiscard]] std::string with_placeholder_plan(const std::string& yaml_text);

}  // namespace cs
