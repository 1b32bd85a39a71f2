// What two jobs on the same GPUs do to each other: a training job (always has work queued: "continuous") and an
// inference replica (iterations of GPU work separated by the host's sampling and scheduling: "iterative"), under
// the isolation the cluster gives them.
//
//   time-slicing  two processes, no isolation (the default compute mode): the GPU runs one context at a time for
//                 a quantum Q and pays a switch s between contexts. An iterative job whose iteration needs m =
//                 ceil(G / Q) quanta waits one quantum of the other job before each: T' = G + m (Q + s) (a CUDA
//                 graph submits the whole iteration at once); launched eagerly, its kernels trickle in and it waits
//                 once per quantum of host time: T' = T + n (Q + s), n = max(1, T / (Q + s)). The continuous job
//                 keeps the rest: 1 - (G + 2 m s) / T' of the GPU while the replica iterates. Two continuous jobs
//                 share Q / (2 (Q + s)) each.
//   mps           kernels of both run at once on the SMs: an inference kernel gets SMs only as the training job's
//                 long GEMM tiles retire, so its kernel time G stretches: T' = T + k G (k measured; eager launches,
//                 whose kernels trickle in, pay a share of it), the training job slowed by a measured amount per
//                 unit of the replica's GPU-time share. With an SM limit for the replica (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE), the replica runs
//                 as on that share of the SMs and the training job on the rest.
//   mig           hard partitions: the replica runs on its slices' share of SMs and memory bandwidth, the training
//                 job on the rest. NCCL does not span MIG instances, so a real training gang could not run there:
//                 its rate is an upper bound (modelled, not measured: MIG needs the GPU's mode changed).
// The constants (Q, s, the MPS waits) are measured (data/colocation.yaml, calibrate/colocation/); each says where
// it came from.
#pragma once

#include <string>

#include "sim/core/units.hpp"
#include "sim/input/param_table.hpp"

namespace cs {

enum class Isolation { nodes, gpus, mig, mps, time_slicing };
[[nodiscard]] const EnumTable<Isolation>& isolation_names();
/// Isolation kinds under which a service replica may share GPUs with a training job.
[[nodiscard]] constexpr bool shares_gpus(Isolation i) noexcept {
  return i == Isolation::mig || i == Isolation::mps || i == Isolation::time_slicing;
}

/// The measured constants of the co-location model (data/colocation.yaml).
struct ColocationParams {
  std::string measured_on = "not measured";  ///< the GPU and the run
  Time quantum = Time::us(4450);             ///< time-slicing: a context's quantum while another waits
  Time context_switch = Time::us(450);       ///< time-slicing: lost at each switch between contexts
  double graph_gpu_share = 0.80;             ///< a graph-launched decode iteration's kernel time over its wall time
  double eager_gpu_share = 0.20;             ///< the same launched eagerly (host-bound)
  double mps_kernel_stretch = 3.96;          ///< mps: extra kernel time per unit of it (SMs held by training tiles)
  double mps_eager_hiding = 0.75;            ///< share of that stretch an eager launch still pays
  double mps_training_loss = 0.54;           ///< training slowdown per unit of the replica's GPU-time share
  double mps_limit_clock_gain = 1.10;        ///< clock gained when an SM limit lowers the board's power
  double mps_limited_interference = 0.60;    ///< SM-limited replica's slowdown per unit of the training share
  int mig_slices = 7;                        ///< compute slices of a whole GPU
  /// The default (data/colocation.yaml), read once; throws InputError when the file is malformed.
  static const ColocationParams& shipped();
};
[[nodiscard]] const ParamTable<ColocationParams>& colocation_params();
[[nodiscard]] ColocationParams load_colocation_params(const std::string& path);

/// One iteration of an inference replica as the co-location model needs it.
struct IterationShape {
  Time wall;            ///< the iteration alone, host gaps included
  int kernels = 0;      ///< kernels launched in it (reported)
  bool cuda_graphs = true;
};

/// The outcome for a replica sharing GPUs with a training job.
struct CoLocation {
  double replica_slowdown = 1;   ///< the replica's iteration time over alone (>= 1)
  double training_rate = 1;      ///< the training job's speed over alone while the replica iterates, (0, 1]
  std::string mechanism;         ///< one line: what the model charged
};

/// A replica and a continuously busy training job on the same GPUs. `mps_limit` is the replica's share of the
/// SMs (0 or 1: none); `mig_slices` the replica's MIG slices (mig).
[[nodiscard]] CoLocation colocate(Isolation isolation, const IterationShape& it, const ColocationParams& p,
                                  double mps_limit = 0, int mig_slices = 0);
/// Two continuously busy jobs time-sliced on one GPU: each one's speed over alone.
[[nodiscard]] double time_sliced_pair_rate(const ColocationParams& p);
/// Two replicas (graph-launched) time-sliced: each one's iteration time over alone, for iterations of wall
/// `a` (this one) and `b` (the other), both always busy.
[[nodiscard]] double time_sliced_replicas_slowdown(Time a, Time b, const ColocationParams& p);

}  // namespace cs
