// The human summary `clustersim run` prints.
#pragma once

#include <string>

#include "sim/scenario/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs {

[[nodiscard]] std::string text_summary(const Scenario& sc, const RunResult& r);
/// What a zero-bubble, V-shaped or PipeDream schedule does to the training (synchronous or stale weights, weight
/// versions, flush, post-update validation), one sentence; empty for the other schedules.
[[nodiscard]] std::string pipeline_semantics(const ParallelPlan& p);

}  // namespace cs
