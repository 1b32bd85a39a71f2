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

/// A schedule file's figures on one candidate (`clustersim design SCHEDULE`, docs/design.md "A schedule as the
/// workload"): what the whole schedule did over its span with the candidate as the cluster's fabric.
struct ScheduleFigures {
  /// When the last training job finished (seconds from the span's start); nullopt when one had not finished
  /// by the end of the span (or never ran).
  std::optional<double> training_finished_s;
  int training_jobs = 0, training_unfinished = 0;
  double training_gpu_hours = 0;   ///< GPU-hours the training jobs held (restarts and lost work included)
  /// The service with the lowest request-weighted SLO attainment over the span, and its target; none without
  /// services.
  std::optional<double> worst_slo_attainment;
  std::string worst_service;
  double worst_target = 0;
  double energy_kwh = 0;           ///< the facility's energy over the span
  double peak_facility_kw = 0;
  double cost_usd = 0;             ///< the schedule's own cost over the span (fixed costs and electricity)
  double gpu_busy_fraction = 0;
  int node_failures = 0;
  struct Job {
    std::string name;
    std::optional<double> finished_s;
    double alone_s = 0;            ///< its work at its largest size, alone on the cluster (tokens / tokens per s)
    double gpu_hours = 0;
  };
  std::vector<Job> jobs;           ///< the training jobs, in the file's order
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
  /// A schedule workload: whether every service met its target attainment, and if not which missed (in words).
  bool meets_slo = true;
  std::string slo_miss;
  int candidate = -1;              ///< index into the fabric_candidates list it was built from
  std::optional<ScheduleFigures> schedule;  ///< a schedule workload's figures
};

struct DesignReport {
  std::string workload = "scenario";    ///< "scenario" (one training job) or "schedule" (a shared cluster's file)
  std::string scenario;                 ///< the scenario's name, or the schedule's
  std::optional<double> span_s;         ///< a schedule's span
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

/// `d`'s tiers and parts list (switches and cables in words) from the built `topology`.
void describe_build(const Topology& topology, DesignCandidate& d);
/// Labels fat-trees by the tiers they got, merges identical builds, and sets the front, the best under the
/// limits (and the SLO floor: when any candidate meets its services' SLO, the best is among those) and every
/// other candidate's verdict.
void rank_candidates(DesignReport& rep);
/// Runs `work(i)` for i in [0, n) on `threads` threads at once (0: all cores).
void for_each_candidate(std::size_t n, int threads, const std::function<void(std::size_t)>& work);

/// The parts of `sc`'s cluster as design_fabrics prices them: make_inventory's, with each cable tier named by
/// its length class and its transceivers chosen by reach (node-leaf: facility.prices.node_transceiver at both
/// ends, multi-mode SR; longer tiers: facility.prices.switch_transceiver at both ends, single-mode DR).
[[nodiscard]] ClusterInventory design_inventory(const Scenario& sc, const PriceBook& book);

}  // namespace cs
