// Memory per GPU: model states by ZeRO stage, activations by recompute mode (Korthikanti et al. 2022,
// "Reducing Activation Recomputation in Large Transformer Models", Sec. 4, with flash attention so the
// attention score matrix is never stored), communication buffers, workspace and a fragmentation margin.
#pragma once

#include <vector>

#include "sim/core/units.hpp"
#include "sim/workload/model_spec.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace cs {

struct MemoryBreakdown {
  int stage = 0;             ///< the pipeline stage this breakdown is for (the one that needs the most)
  Bytes weights;
  /// Older weight versions kept for the micro-batches still in flight (PipeDream-2BW: one, PipeDream: up to pp - 1),
  /// at the working weights' size each.
  Bytes stashed_weights;
  int weight_versions = 1;   ///< versions of the weights held: 1 + the stashed ones
  Bytes gradients;
  Bytes optimizer;
  Bytes activations;
  /// Of `activations`, those of micro-batches whose input gradient (B) has run and whose weight gradient (W) waits
  /// (zero-bubble and V-shaped schedules; zero otherwise), at the peak.
  Bytes activations_awaiting_w;
  Bytes comm_buffers;
  Bytes workspace;           ///< CUDA context, cuBLAS/cuDNN workspaces
  Bytes fragmentation;       ///< allocator margin

  [[nodiscard]] Bytes total() const noexcept {
    return weights + stashed_weights + gradients + optimizer + activations + comm_buffers + workspace + fragmentation;
  }
};

/// Parameters held by one GPU of pipeline stage `stage` (before any ZeRO sharding).
[[nodiscard]] double params_per_gpu(const ModelSpec& m, const ParallelPlan& p, int stage);
/// Activations one GPU of pipeline rank `stage` keeps for one micro-batch through each of its chunks, in chunk order.
[[nodiscard]] std::vector<double> chunk_activation_bytes(const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t,
                                                         int stage);
/// Bytes of activations one layer of kind `kind` keeps for one micro-batch until its backward pass.
[[nodiscard]] Bytes activation_bytes_per_layer(const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t,
                                               LayerKind kind);
/// The largest per-GPU footprint over all pipeline stages.
[[nodiscard]] MemoryBreakdown peak_memory_per_gpu(const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t);

}  // namespace cs
