// An inference service's run: the scenario's `serving:` section simulated request by request (sim/serving) on its
// GPU profile's kernel prices and its topology's TP collectives, then priced by the facility layer as the
// service's window of time, so that the cost per million tokens comes from the same TCO as training's.
#pragma once

#include "sim/scenario/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs {

/// Fills `r` for the service `sc` (sc.serving must be set): the serving result, and the power, reliability and
/// cost of the simulated window (a priced cluster) or the warning why it has none.
void run_service(const Scenario& sc, RunResult& r);

}  // namespace cs
