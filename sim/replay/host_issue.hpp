// How an eager host and the GPU's stream interleave over a run of operators. The GPU cannot start a kernel before
// the host has launched it, and a host synchronisation (Op::host_sync) makes the host wait until the GPU has
// drained what came before. Over launches k with host cost h_k and stream time g_k, starting together, the GPU
// finishes at G + max(0, M) with M = max_k (sum_{j<=k} h_j - sum_{j<k} g_j): M is the idle time the host causes.
// The summary composes, so a unit's summary is its layers' summaries in order (embedding, layers, head): a long
// GPU-bound part gives the host the lead it spends on a launch-bound part after it, never before it.
#pragma once

#include <limits>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/workload/layer_ops.hpp"

namespace cs {

/// The host's time per launch, by what issues it, on the node's host (UnitCosts::launch_costs).
struct LaunchCosts {
  /// An operator's launch: one kernel's in eager PyTorch, one module call's in a framework whose modules do more
  /// per call (TrainingConfig::framework_host_factor).
  Time op;
  /// Each launch of an operator the framework runs as a chain of plain PyTorch operators (Op::python_launches),
  /// and each further launch of a grouped operator looped in Python: eager PyTorch's cost per kernel.
  Time torch_op;
  /// A grouped operator's further GEMM and further small kernel from a native (C++) loop.
  Time native_gemm, native_kernel;
  /// The same cost for every launch of every kind (a host that does `t` per kernel).
  [[nodiscard]] static LaunchCosts uniform(Time t) { return {t, t, t, t}; }
};

class HostIssue {
 public:
  /// `stream[i]`: op i's time on the GPU stream (kernels with their gaps, or an in-stream collective); `costs`:
  /// the host's time per launch. An op's further launches (one per local expert) cost costs.torch_op each from a
  /// Python loop, costs.native_gemm or costs.native_kernel from a native one. Ops of the CUDA-graph modules
  /// `captured` (CudaGraphModules::Bit) replay as graphs: one launch at costs.torch_op per stretch of them.
  [[nodiscard]] static HostIssue of(const std::vector<Op>& ops, const std::vector<Time>& stream,
                                    const LaunchCosts& costs, GroupedLaunch grouped = GroupedLaunch::python,
                                    unsigned captured = 0);
  /// Every launch, native loops' included, at `launch_cost`.
  [[nodiscard]] static HostIssue of(const std::vector<Op>& ops, const std::vector<Time>& stream, Time launch_cost,
                                    GroupedLaunch grouped = GroupedLaunch::python) {
    return of(ops, stream, LaunchCosts::uniform(launch_cost), grouped);
  }
  /// This run followed by `next`.
  [[nodiscard]] HostIssue then(const HostIssue& next) const;
  /// GPU idle time waiting for the host over the whole run, both clocks starting together.
  [[nodiscard]] Time wait() const { return wait(Time::zero()); }
  /// The same when the host began issuing the run `lead` before the GPU could start it (it had finished the
  /// previous run's launches while the GPU was still busy): the lead covers launches up to the first
  /// synchronisation, which drains it.
  [[nodiscard]] Time wait(Time lead) const;
  /// From the GPU's start of the run to the host's last launch of it, the host having begun `lead` earlier
  /// (negative where the host was done before the GPU started): where the host stands for the next run.
  [[nodiscard]] Time host_span(Time lead) const;
  /// The host's time launching the whole run (every launch's cost, synchronisations' waits excluded).
  [[nodiscard]] Time host() const { return Time::from_seconds(host_); }
  /// Whether the run synchronises the host with the GPU somewhere (Op::host_sync).
  [[nodiscard]] bool synced() const noexcept { return synced_; }

 private:
  struct Run {  // launches with no synchronisation among them
    double gpu = 0, host = 0;
    double deficit = -std::numeric_limits<double>::infinity();
    void launch(double h, double g);
    [[nodiscard]] Run then(const Run& b) const;
  };
  Run head_;            ///< up to the first synchronisation (all of it without one)
  bool synced_ = false;
  double closed_ = 0;   ///< idle inside the segments between the first and the last synchronisation
  double closed_gpu_ = 0;  ///< GPU stream time of those segments
  Run tail_;            ///< from the last synchronisation on
  double host_ = 0;     ///< every launch's host cost, summed
};

}  // namespace cs
