// Links a simulated run to the facility layer: the cluster's priced parts from its topology, the step as the
// power model sees it, and the power, reliability and cost report of the scenario.
#pragma once

#include "sim/facility/cluster_inventory.hpp"
#include "sim/facility/facility_config.hpp"
#include "sim/facility/price_book.hpp"
#include "sim/facility/run_profile.hpp"
#include "sim/facility/tco_model.hpp"
#include "sim/scenario/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs {

/// The cluster's parts from the scenario's topology: nodes and switches are found in the price book by the model
/// names of the topology file, cables and transceivers by `facility.prices`, storage by
/// `facility.storage_capacity`. Throws InputError when a model has no price-book entry.
[[nodiscard]] ClusterInventory make_inventory(const Scenario& sc, const PriceBook& book);

/// Throws InputError at training.token_budget unless the scenario gives one (costing a run needs it).
void require_token_budget(const Scenario& sc);

/// True when a GPU power cap is set and the profile's fitted cost model prices it (a calibrated power-cap model):
/// run_scenario's step time is then already the capped one.
[[nodiscard]] bool prices_power_cap(const Scenario& sc);

/// The simulated step as the facility layer sees it, from the critical stage's breakdown: compute = tensor-core
/// kernels, memory = bandwidth-bound kernels and the optimizer step, communication = exposed TP, CP, EP, DP and
/// parameter-gather time, idle = pipeline bubble and waits. Needs training.token_budget (InputError otherwise).
[[nodiscard]] RunProfile make_run_profile(const Scenario& sc, const RunResult& r);

/// Power, reliability and cost of the scenario's cluster running `r`.
[[nodiscard]] TcoReport scenario_tco(const Scenario& sc, const RunResult& r, const PriceBook& book);

}  // namespace cs
