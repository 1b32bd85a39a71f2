// The public entry point for simulating a scenario: the CLI, the GUI planner and sweep workers call this.
#pragma once

#include <vector>

#include "sim/replay/step_replay.hpp"
#include "sim/scenario/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs {

/// Simulates one training step of `sc` and derives throughput, MFU, memory and time to train.
/// `observers` receive every span of the replayed step (trace writers, statistics).
[[nodiscard]] RunResult run_scenario(const Scenario& sc, const std::vector<ReplayObserver*>& observers = {});

}  // namespace cs
