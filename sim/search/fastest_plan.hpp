// The fastest plan for a scenario whose layout is not given: every valid plan is screened (ScreenModel), the
// best few by screened step time are replayed in full (run_scenario), and the fastest replayed one wins. What
// `validate` uses for a published row that states no layout (a publisher runs the layout it tuned), and a
// one-call form of the plan search for library users.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "sim/scenario/scenario.hpp"

namespace cs {

/// Writes the fastest plan found into `sc` (plan, micro-batch, recompute, overlap) and returns its description
/// ("tp4 cp1 pp8 vpp1 dp3 mb1 none zero1 ..."); nullopt when no plan divides evenly, fits in memory and is
/// accepted by `keep` (every plan when `keep` is empty). Replays the `replay` best screened plans on the
/// calling thread.
[[nodiscard]] std::optional<std::string> choose_fastest_plan(Scenario& sc,
                                                             const std::function<bool(const ParallelPlan&, const Overlap&)>& keep = {},
                                                             int replay = 3);

}  // namespace cs
