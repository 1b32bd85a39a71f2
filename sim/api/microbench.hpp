// What one kernel and one collective cost on their own: the simulator's counterparts of a GEMM benchmark and of
// nccl-tests, behind `clustersim cost` and `clustersim collective` (docs/profiles.md, docs/network.md).
#pragma once

#include <string>
#include <vector>

namespace cs::api {

/// The CSV of GEMM shapes at `shapes_path` (header op,dtype,m,n,k; "-" reads standard input) with each
/// kernel's predicted time appended (`predicted_s`), after a `# profile:` line naming the device profile
/// (a shipped name or a file) and whether its numbers are measured or from the datasheet. Throws InputError,
/// located in the shapes file, before anything is returned.
[[nodiscard]] std::string kernel_cost_csv(const std::string& profile, const std::string& shapes_path);

/// A sweep of one collective over message sizes, as nccl-tests runs it.
struct CollectiveSweepOptions {
  std::string topology = "dgx-h100";      ///< a topology name or file
  int gpus = 8;                           ///< GPUs in the cluster; fewer than a node uses the first of one node
  std::string op = "all_reduce";          ///< all_reduce, all_gather, reduce_scatter, broadcast, reduce, ...
  std::string algorithm = "auto";         ///< auto (the NCCL-like tuner), ring, tree, ...
  std::string backend = "flow";           ///< flow (max-min flow model) or analytic
  std::string calibration = "datasheet";  ///< datasheet, ideal or a calibration CSV
  std::string min_bytes = "8B";           ///< smallest message, with its unit
  std::string max_bytes = "8GiB";         ///< largest message, with its unit
  double factor = 2;                      ///< size multiplier between samples (> 1)
  int group_size = 0;                     ///< ranks per group, groups issued together (0: one group of all GPUs)
};

/// One message size of the sweep.
struct CollectiveSample {
  double bytes = 0;       ///< NCCL's buffer size (B)
  std::string size;       ///< the same, in a unit ("1 GiB")
  std::string algorithm;  ///< the algorithm that ran (the tuner's choice under "auto")
  double seconds = 0;     ///< simulated time of the collective
  double algbw = 0;       ///< bytes / seconds (B/s)
  double busbw = 0;       ///< algbw times the collective's bus factor, as nccl-tests reports it (B/s)
};

struct CollectiveSweep {
  std::string collective;  ///< "all-reduce"
  int gpus = 0;
  int group_ranks = 0;                    ///< ranks in each group (2 for send/recv)
  std::string topology;                   ///< the topology's name
  std::string topology_report;            ///< the builder's report: nodes, GPUs, NICs, fabric, switches
  std::string model;                      ///< the collective model's description (backend, tuner, calibration)
  std::vector<CollectiveSample> samples;  ///< smallest message first
};

/// Runs the collective at every size from min_bytes to max_bytes (times factor), each on a fresh engine. Throws
/// InputError (located at the option's name, "--op", ...) for a bad option or a cluster the topology cannot
/// build.
[[nodiscard]] CollectiveSweep collective_sweep(const CollectiveSweepOptions& options);

}  // namespace cs::api
