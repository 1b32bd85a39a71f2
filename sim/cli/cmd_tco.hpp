#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "sim/facility/cluster_inventory.hpp"
#include "sim/facility/facility_config.hpp"
#include "sim/facility/price_book.hpp"
#include "sim/facility/run_profile.hpp"
#include "sim/facility/tco_model.hpp"
#include "sim/scenario/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs::cli {

/// The `facility:` section of a scenario file, or the defaults when it has none. Throws InputError.
[[nodiscard]] FacilityConfig load_facility_config(const std::string& scenario_path);

/// The cluster's parts from the scenario's topology: nodes and switches are found in the price book by the model
/// names of the topology file, cables and transceivers by `facility.prices`, storage by
/// `facility.storage_capacity`. Throws InputError when a model has no price-book entry.
[[nodiscard]] ClusterInventory make_inventory(const Scenario& sc, const FacilityConfig& facility, const PriceBook& book);

/// The simulated step as the facility layer sees it. The replay does not split kernels into compute- and
/// memory-bound, so: compute = kernels on the critical stage, memory = the optimizer step (HBM-bound),
/// communication = exposed TP, CP, EP, DP and parameter-gather time, idle = pipeline bubble and waits.
/// Throws InputError at training.token_budget when the scenario has none.
[[nodiscard]] RunProfile make_run_profile(const Scenario& sc, const RunResult& r);

/// Everything `clustersim run` needs for its power, reliability and tco sections.
[[nodiscard]] TcoReport scenario_tco(const Scenario& sc, const RunResult& r, const FacilityConfig& facility,
                                     const PriceBook& book);

/// `clustersim tco SCENARIO.yaml [--csv] [--pricebook FILE] [--profile P]`: the full power, reliability and cost
/// breakdown of a scenario.
void register_tco_command(CLI::App& app);

}  // namespace cs::cli
