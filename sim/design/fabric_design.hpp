// `clustersim design`: for one job and a GPU count, every candidate fabric (fabric_candidates.hpp) built,
// simulated with the full step replay and priced from the price book (switches, NICs in the nodes, transceivers
// by reach, cables by length class, OCS units), then the Pareto front of time to train against network capex and
// TCO, the best candidate under a budget or a power limit, and why each other one lost (docs/design.md).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/facility/bill_of_materials.hpp"
#include "sim/facility/cluster_inventory.hpp"
#include "sim/facility/price_book.hpp"
#include "sim/design/fabric_candidates.hpp"
#include "sim/scenario/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs {

struct DesignOptions {
  std::optional<Dollars> budget;  ///< hardware capex limit
  std::optional<Watts> power;     ///< IT peak power limit
  int threads = 0;                ///< candidates evaluated at once (0: all cores)
};

struct DesignCandidate {
  std::string family;            ///< fat-tree, rail-optimized, rail-only, torus, hypercube, dragonfly, ocs
  std::string label;
  int tiers = 0;                 ///< switch tiers built (leaf/spine/core; a direct fabric's routers or the OCS: 1)
  double oversubscription = 1;   ///< leaf down:up ports; 1 for non-blocking and direct fabrics
  double network_capex_usd = 0;  ///< switches, OCS units, cables and transceivers (the bill's "network" lines)
  double capex_usd = 0;          ///< the whole hardware bill
  double network_power_w = 0;    ///< switches (typical) and switch-side optics
  double it_peak_power_w = 0;    ///< the cluster at its peak, what --power limits
  double step_time_s = 0;
  double time_to_train_s = 0;    ///< the token budget's steps, plus an OCS's reconfiguration once
  double tco_usd_per_year = 0;
  /// With parallelism.placement: optimise: Megatron's order's step, and whether the optimised placement was kept.
  std::optional<PlacementReport> placement;
  bool pareto = false;
  bool within_limits = true;     ///< under --budget and --power
  std::string verdict;           ///< "best", or why it lost
  std::string error;             ///< why it could not be built or run (then no numbers)
  std::vector<BomLine> network_bom;
  std::vector<std::string> parts;  ///< the builder's switch and cable counts, in words
};

struct DesignReport {
  std::string scenario;
  int gpus = 0;
  int nodes = 0;
  std::vector<DesignCandidate> candidates;
  int best = -1;                        ///< index into candidates; -1 when none fits the limits
  std::vector<StrideTraffic> traffic;   ///< node-to-node bytes per step by stride, heaviest first
  /// Candidates whose build came out identical to an earlier one's (a small cluster fits one switch whatever the
  /// tiers or oversubscription asked for), as "label: the same build as label"; they are not listed again.
  std::vector<std::string> merged;
  std::optional<Dollars> budget;
  std::optional<Watts> power;
};

/// Evaluates every candidate. `fresh` returns the scenario freshly loaded (each candidate replaces its
/// topology); it is called from several threads at once. Throws InputError for a scenario without a token
/// budget; a candidate that cannot be built is reported with its error, not thrown.
[[nodiscard]] DesignReport design_fabrics(const std::function<Scenario()>& fresh, const DesignOptions& options);

/// The parts of `sc`'s cluster as design_fabrics prices them: make_inventory's, with each cable tier named by
/// its length class and its transceivers chosen by reach (node-leaf: facility.prices.node_transceiver at both
/// ends, multi-mode SR; longer tiers: facility.prices.switch_transceiver at both ends, single-mode DR).
[[nodiscard]] ClusterInventory design_inventory(const Scenario& sc, const PriceBook& book);

}  // namespace cs
