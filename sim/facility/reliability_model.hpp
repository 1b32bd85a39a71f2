// Failures, checkpoints and goodput of a training run on the cluster. Components fail independently with
// exponential lifetimes; the cluster's mean time between job-killing failures is the inverse of the summed
// rates. Checkpoint interval from Young (1974) and Daly (2006); wall time from Daly's restart model.
#pragma once

#include "sim/core/units.hpp"
#include "sim/facility/cluster_inventory.hpp"
#include "sim/facility/facility_config.hpp"
#include "sim/facility/run_profile.hpp"

namespace cs {

struct ReliabilityReport {
  double gpu_failures_per_hour = 0.0;       ///< whole cluster
  double node_failures_per_hour = 0.0;
  double link_failures_per_hour = 0.0;
  double software_failures_per_hour = 0.0;
  Time mtbf;                                ///< cluster mean time between job interruptions
  Bytes checkpoint_size;
  Time checkpoint_write;                    ///< delta: time to write one checkpoint, all nodes in parallel
  Time checkpoint_restore;                  ///< time to read it back
  Time restart_time;                        ///< R: restart overhead + restore
  Time young_interval;                      ///< sqrt(2 delta M)
  Time daly_interval;                       ///< Daly's higher-order optimum
  Time interval_used;                       ///< configured, else Daly's
  double goodput = 1.0;                     ///< useful compute time / wall time
  Time ideal_train_time;                    ///< steps x step time, no failures
  Time effective_train_time;                ///< ideal / goodput
  double expected_interruptions = 0.0;      ///< during the effective training time
  double expected_nodes_down = 0.0;         ///< mean nodes awaiting repair at any time
  int spare_nodes = 0;
};

/// Young's first-order optimum: sqrt(2 delta M).
[[nodiscard]] Time young_interval(Time checkpoint_write, Time mtbf);
/// Daly (2006), higher-order estimate: sqrt(2 delta M) [1 + sqrt(delta / 2M) / 3 + (delta / 2M) / 9] - delta for delta < 2M,
/// else M.
[[nodiscard]] Time daly_interval(Time checkpoint_write, Time mtbf);
/// Daly's expected wall time per unit of solve time with checkpoints every `interval` (tau), write time delta,
/// restart R and MTBF M: T_wall / T_solve = M e^(R/M) (e^((tau + delta)/M) - 1) / tau. Goodput is its inverse.
[[nodiscard]] double daly_goodput(Time interval, Time checkpoint_write, Time restart, Time mtbf);
/// Smallest k with P(Poisson(mean) <= k) >= confidence.
[[nodiscard]] int poisson_quantile(double mean, double confidence);

/// `step_time` is the step under any power cap (PowerReport::step_time).
[[nodiscard]] ReliabilityReport compute_reliability(const ReliabilityConfig& config, const ClusterInventory& inventory,
                                                    const RunProfile& run, Time step_time);

}  // namespace cs
