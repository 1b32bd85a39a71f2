// The machine-readable result of `clustersim run --json`: field names carry their unit (_s, _bytes, ...).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs {

[[nodiscard]] nlohmann::ordered_json to_json(const Scenario& sc, const RunResult& r);

}  // namespace cs
