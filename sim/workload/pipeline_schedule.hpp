// The order in which one pipeline rank runs its forward and backward passes over micro-batches and model
// chunks: GPipe (all forwards, then all backwards), 1F1B (PipeDream-Flush; Narayanan et al. 2021) and
// interleaved 1F1B with virtual stages (Narayanan et al. SC'21, Sec. 2.2), following Megatron-LM's ordering.
#pragma once

#include <vector>

#include "sim/workload/model_spec.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace cs {

struct PipelineUnit {
  bool forward = true;
  int micro_batch = 0;
  int chunk = 0;  ///< virtual chunk on this rank (0 unless interleaved)
  /// A forward that runs merged with the backward after it in the order (`merge_forward_backward`).
  bool paired = false;
};

/// The units pipeline rank `stage` executes, in order, for `micro_batches` micro-batches. With
/// `merge_forward_backward` (1F1B schedules only), Megatron-Core's merged forward-backward schedule for MoE
/// all-to-all overlap: one more forward in the warm-up, then every steady-state forward is paired with the
/// backward that follows it (a different micro-batch, so neither waits for the other).
[[nodiscard]] std::vector<PipelineUnit> pipeline_order(const ParallelPlan& p, int stage, int micro_batches,
                                                       bool merge_forward_backward = false);

/// Whether Megatron-Core can merge forward and backward to overlap the EP all-to-all under this layout: an MoE
/// model with expert parallelism, and no pipeline or an interleaved one.
[[nodiscard]] bool layout_allows_ep_overlap(const ModelSpec& m, const ParallelPlan& p) noexcept;
/// Whether a step runs the merged forward-backward schedule: EP all-to-all overlap asked for, on a layout that
/// allows it.
[[nodiscard]] bool merges_forward_backward(const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t) noexcept;

}  // namespace cs
