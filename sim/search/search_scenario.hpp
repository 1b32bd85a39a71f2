// `parallelism: search` in a scenario: the plan is left to the planner. The scenario loader knows only
// concrete plans, so this hook writes a placeholder plan over the parsed document as settings (every
// parallelism key at its default, dp auto = every GPU; one sequence per micro-batch and one per GPU per step,
// which passes every divisibility check) while the loader checks everything else, then restores the
// scenario's own batch sizes. The text is parsed once, and the rest keeps the loader's located errors.
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

}  // namespace cs
