// The machine-readable result of `clustersim run --json`: field names carry their unit (_s, _bytes, ...).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "sim/scenario/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs {

[[nodiscard]] nlohmann::ordered_json to_json(const Scenario& sc, const RunResult& r);
/// The "breakdown" object of to_json: where the critical stage's step time went, and its SM clock (null without
/// a power-cap model). `clustersim validate --json` writes the same object for each row.
[[nodiscard]] nlohmann::ordered_json breakdown_json(const StepResult& step, std::optional<double> sm_clock_mhz);
/// The "memory" object of to_json: the most loaded GPU's footprint by part, in bytes.
[[nodiscard]] nlohmann::ordered_json memory_json(const MemoryBreakdown& m);

}  // namespace cs
