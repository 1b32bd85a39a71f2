// The cost of each pipeline unit (one micro-batch's forward or backward through one model chunk on one GPU),
// computed once from the layer operators and reused for every micro-batch: all micro-batches of a chunk have
// identical shapes, so the replay schedules units, not kernels.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "sim/collectives/collective.hpp"
#include "sim/hardware/compute_cost_model.hpp"
#include "sim/replay/host_issue.hpp"
#include "sim/replay/merged_units.hpp"
#include "sim/replay/rank_layout.hpp"
#include "sim/workload/layer_ops.hpp"
#include "sim/workload/moe_dispatch.hpp"
#include "sim/workload/pipeline_schedule.hpp"

namespace cs {

/// Answers "how long would this collective take on an idle fabric"; used for the short, node-local
/// collectives inside a unit (TP, CP, EP), whose time is charged to the compute stream.
using CollectiveEstimate = std::function<Time(const CollectiveRequest&)>;

struct UnitCost {
  Time compute;          ///< GEMM, attention and memory-bound kernels (recompute included for backward)
  Time memory_kernels;   ///< the bandwidth-bound part of `compute` (norms, activations, casts, ...)
  Time tp_comm;          ///< exposed tensor-parallel collectives
  Time cp_comm;          ///< exposed context-parallel K/V exchange
  Time ep_comm;          ///< expert-parallel all-to-all
  /// GPU idle waiting for an eager host: launches that take longer than the kernels they queue, and the drain a
  /// host synchronisation forces (TrainingConfig::host_launch_cost).
  Time host_wait;
  /// How the host issued this part's kernels (for composing a unit's host_wait from its parts, in order).
  HostIssue issue;
  /// The eager host's time launching the whole unit (recompute reruns included), and the Megatron-Core schedule
  /// nodes the unit is made of where it runs merged (1 per chunk, 5 per MoE layer, 2 per dense layer, 1 more per
  /// multi-token prediction module, 1 for the loss): for merged units, whose launches the host issues together.
  Time host;
  int schedule_nodes = 0;
  Flops model_flops;     ///< per GPU, Megatron-LM's convention (no recompute)
  Flops hardware_flops;  ///< per GPU, recompute included
  Time selective_recompute;  ///< forward time of the ops selective recompute reruns (unfused attention core)
  Flops selective_flops;
  /// Forward time of the ops of the recompute modules the config names (TrainingConfig::recompute_modules):
  /// on the compute stream (kernels, TP waits) and in EP all-to-alls (a recomputed MoE block reruns them).
  Time module_recompute, module_recompute_ep;
  Flops module_flops;
  /// Kernel seconds times the SM clock they run at, as a fraction of f_max (1 without a power-cap model): over
  /// `compute`, the time-weighted clock.
  double clock_seconds = 0.0;
  /// The unit's work in issue order, split where EP all-to-alls begin and end (for merged units); `+=` appends.
  std::vector<Phase> phases;
  [[nodiscard]] Time total() const noexcept { return compute + tp_comm + cp_comm + ep_comm + host_wait; }
  UnitCost& operator+=(const UnitCost& o) noexcept;
};

/// Unit times for studying a schedule by hand: every forward, B, W and optimizer step the same on every stage and
/// chunk; a whole backward is B + W.
struct FixedUnitTimes {
  Time forward, input_grad, weight_grad, optimizer;
};

class UnitCosts {
 public:
  /// Units at `times` and nothing else (no communication inside units, no FLOPs, no host), on `compute`'s
  /// bandwidth-bound kernels for gradient compression: tests and docs/workload.md's diagrams.
  UnitCosts(const ParallelPlan& p, const TrainingConfig& t, const ComputeCostModel& compute, const FixedUnitTimes& times);
  /// `sm_count`: the GPU's streaming multiprocessors, for the slowdown of GEMMs that hide TP collectives.
  /// `node_gpus`: GPUs per node of the topology, for where a flex MoE dispatcher's traffic crosses nodes.
  /// `host_linear_forward`: the node's host on the yardstick of NodeSpec::host_linear_forward (zero: unknown,
  /// priced as the calibration hosts).
  UnitCosts(const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t, const ComputeCostModel& compute,
            const CollectiveEstimate& estimate, int sm_count, int node_gpus = 8,
            Time host_linear_forward = Time::zero());
  /// The node's host against the calibration hosts (NodeSpec::host_linear_forward over the framework profile's
  /// calibration_host_linear_forward; 1 where either is not known): every host cost scales with it.
  [[nodiscard]] double host_speed() const noexcept { return host_speed_; }
  /// An operator's eager launch against the calibrated one (eager PyTorch on the calibration hosts): the
  /// framework's work per call (TrainingConfig::framework_host_factor) times host_speed().
  [[nodiscard]] double host_scale() const noexcept { return host_scale_; }
  /// The host's time per launch on this node: an operator's at host_scale() times TrainingConfig::host_launch_cost;
  /// plain PyTorch operators (Op::python_launches) and Python loops at the host's speed alone; native loops are
  /// Transformer Engine's: the framework profile's native_gemm_launch times its factor per further GEMM, at most
  /// its grouped_gemm_launch, native_kernel_launch per further small kernel (FrameworkHostCosts). Megatron-Core's schedule nodes (its own Python) scale with the host alone (host_scaled).
  [[nodiscard]] LaunchCosts launch_costs() const noexcept;
  /// A calibrated host cost on this node's host.
  [[nodiscard]] Time host_scaled(Time t) const noexcept { return scaled(t, host_speed_); }

  [[nodiscard]] const UnitCost& forward(int stage, int chunk) const { return fwd_[index(stage, chunk)]; }
  [[nodiscard]] const UnitCost& backward(int stage, int chunk) const { return bwd_[index(stage, chunk)]; }
  /// Where the schedule splits the backward (splits_backward): its input-gradient part B (every backward kernel
  /// but the weight-gradient GEMMs, with any recompute rerun) and its weight-gradient part W, each priced from the
  /// same kernels as backward(), so B + W is the backward up to the clock each part's kernel mix settles at.
  [[nodiscard]] const UnitCost& input_grad(int stage, int chunk) const { return input_[index(stage, chunk)]; }
  [[nodiscard]] const UnitCost& weight_grad(int stage, int chunk) const { return weight_[index(stage, chunk)]; }
  /// The mean forward, B and W over every stage and chunk, relative to each other (what a schedule built by list
  /// scheduling orders its units by: pipeline_order); equal where the backward is not split.
  [[nodiscard]] UnitTimes unit_times() const noexcept;
  /// The cost of unit `u` of rank `stage`: a forward, a whole backward, a B or a W.
  [[nodiscard]] const UnitCost& of(const PipelineUnit& u, int stage) const {
    const std::size_t i = index(stage, u.chunk);
    if (u.forward) return fwd_[i];
    if (u.part == BackwardPart::input) return input_[i];
    return u.part == BackwardPart::weight ? weight_[i] : bwd_[i];
  }
  /// Parameters of one chunk on one GPU (before ZeRO sharding).
  [[nodiscard]] double chunk_params(int stage, int chunk) const { return params_[index(stage, chunk)]; }
  /// A forward of `fwd_chunk` and a backward of `bwd_chunk` on `stage` run merged on a compute and a
  /// communication stream (merges_forward_backward), host waits excluded; zero when the plan does not merge.
  [[nodiscard]] Time merged(int stage, int fwd_chunk, int bwd_chunk) const {
    return merged_.empty() ? Time::zero() : merged_[pair_index(stage, fwd_chunk, bwd_chunk)];
  }
  /// The GPU's idle time waiting for the host over such a merged pair: the two units' own waits, or, where the
  /// host takes longer to issue both units than the GPU takes to run them merged, that difference (the host
  /// issues every launch of both, plus the schedule nodes' own cost: FrameworkHostCosts::schedule_node_host[_synced]).
  [[nodiscard]] Time merged_host_wait(int stage, int fwd_chunk, int bwd_chunk) const {
    return merged_wait_.empty() ? Time::zero() : merged_wait_[pair_index(stage, fwd_chunk, bwd_chunk)];
  }
  /// The same for any two units run merged (the plan search's screen prices one layer's pair with it).
  [[nodiscard]] Time merged_pair_host_wait(const UnitCost& f, const UnitCost& b, Time merged_gpu) const;
  /// The optimizer step of a stage (Adam over the GPU's shard of fp32 states), plus the once-per-step fp8 cast
  /// of the weights under an fp8 recipe without fp8 parameters.
  [[nodiscard]] Time optimizer(int stage) const { return optimizer_[static_cast<std::size_t>(stage)]; }
  /// A bandwidth-bound kernel on this GPU (gradient compression passes).
  [[nodiscard]] Time memory_bound(Bytes b) const { return compute_.memory_bound(b); }

 private:
  [[nodiscard]] std::size_t index(int stage, int chunk) const noexcept {
    return static_cast<std::size_t>(chunk * pp_ + stage);
  }
  [[nodiscard]] UnitCost cost_of(const std::vector<Op>& ops, const ComputeCostModel& compute,
                                 const CollectiveEstimate& estimate) const;

  /// A flex dispatcher's two phases (moe_dispatch.hpp): each rank's deduplicated sends to the same-index rank of
  /// every other node of its EP group, and the NVLink fan-out inside each node; they run pipelined, so the
  /// dispatch (or combine) takes the longer of the two.
  struct FlexDispatch {
    int top_k = 1, nodes = 1, node_ranks = 1;
    DispatchFanout fanout;
    std::vector<std::vector<int>> rail_groups, node_groups;
    [[nodiscard]] Time time(const Op& op, const CollectiveEstimate& estimate) const;
  };
  std::optional<FlexDispatch> flex_;
  /// Stage 0's groups, as every collective request of a unit names them: its first TP group (TP groups sit
  /// inside a node and never share links), and all its CP and EP groups (they run in lockstep).
  GroupList tp_group_, cp_groups_, ep_groups_;

  const ComputeCostModel& compute_;
  int pp_;
  int v_ = 1;
  int sm_count_;
  std::vector<Time> merged_;  ///< per (stage, forward chunk, backward chunk)
  std::vector<Time> merged_wait_;  ///< the same pairs' host waits (merged_host_wait)
  [[nodiscard]] std::size_t pair_index(int stage, int fwd_chunk, int bwd_chunk) const {
    return (index(stage, fwd_chunk) * static_cast<std::size_t>(v_)) + static_cast<std::size_t>(bwd_chunk);
  }
  std::vector<UnitCost> fwd_, bwd_, input_, weight_;
  std::vector<double> params_;
  std::vector<Time> optimizer_;
  ParallelPlan plan_;
  TrainingConfig train_;
  /// `t` times `k`, exactly `t` where `k` is 1 (no rounding through seconds).
  [[nodiscard]] static Time scaled(Time t, double k) noexcept { return k == 1.0 ? t : Time::from_seconds(t.seconds() * k); }
  double host_speed_ = 1.0;
  double host_scale_ = 1.0;
};

}  // namespace cs
