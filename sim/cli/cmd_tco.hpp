#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "sim/facility/cluster_inventory.hpp"
#include "sim/facility/facility_config.hpp"
#include "sim/facility/run_profile.hpp"

namespace cs::cli {

/// What `clustersim tco` needs from a scenario: its `facility:` section, the cluster's part counts and the
/// simulated run. The scenario layer fills it (load the scenario, simulate one step).
struct TcoInputs {
  FacilityConfig facility;
  ClusterInventory inventory;
  RunProfile run;
};
using TcoInputLoader = std::function<TcoInputs(const std::string& scenario_path)>;

/// `clustersim tco SCENARIO.yaml [--csv] [--pricebook FILE]`: the full power, reliability and cost breakdown.
void register_tco_command(CLI::App& app, TcoInputLoader load);

}  // namespace cs::cli
