// The order in which one pipeline rank runs its forward and backward passes over micro-batches and model
// chunks: GPipe (all forwards, then all backwards), 1F1B (PipeDream-Flush; Narayanan et al. 2021),
// interleaved 1F1B with virtual stages (Narayanan et al. SC'21, Sec. 2.2), following Megatron-LM's ordering,
// and DualPipe (DeepSeek-V3, arXiv 2412.19437 Sec. 3.2.1), following deepseek-ai/DualPipe: half the
// micro-batches enter at rank 0 and run chunk 0 (piece s on rank s), half enter at rank pp-1 and run chunk 1
// (piece pp-1-s on rank s), and the steady state pairs a forward of one direction with a backward of the other.
#pragma once

#include <vector>

#include "sim/workload/model_spec.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace cs {

struct PipelineUnit {
  bool forward = true;
  /// The micro-batch; under DualPipe its index among its chunk's (direction's) micro-batches, 0 .. micro_batches/2 - 1.
  int micro_batch = 0;
  int chunk = 0;  ///< chunk on this rank (interleaved: virtual stage; DualPipe: direction); 0 otherwise
  /// A forward that runs merged with the backward after it in the order (`merge_forward_backward`).
  bool paired = false;
};

/// The units pipeline rank `stage` executes, in order, for `micro_batches` micro-batches. With
/// `merge_forward_backward` (1F1B schedules), Megatron-Core's merged forward-backward schedule for MoE
/// all-to-all overlap: one more forward in the warm-up, then every steady-state forward is paired with the
/// backward that follows it (a different micro-batch, so neither waits for the other). DualPipe pairs its own
/// steady-state forward-backward couples when `merge_forward_backward` is set, else runs them one after the other.
[[nodiscard]] std::vector<PipelineUnit> pipeline_order(const ParallelPlan& p, int stage, int micro_batches,
                                                       bool merge_forward_backward = false);

/// Whether forward and backward can run merged to overlap the EP all-to-all under this layout: an MoE model with
/// expert parallelism, and no pipeline, an interleaved one (Megatron-Core's condition) or DualPipe.
[[nodiscard]] bool layout_allows_ep_overlap(const ModelSpec& m, const ParallelPlan& p) noexcept;
/// Whether a step runs the merged forward-backward schedule: EP all-to-all overlap asked for, on a layout that
/// allows it.
[[nodiscard]] bool merges_forward_backward(const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t) noexcept;

}  // namespace cs
