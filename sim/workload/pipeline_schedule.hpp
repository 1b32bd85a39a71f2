// The order in which one pipeline rank runs its forward and backward passes over micro-batches and model
// chunks: GPipe (all forwards, then all backwards), 1F1B (PipeDream-Flush; Narayanan et al. 2021),
// interleaved 1F1B with virtual stages (Narayanan et al. SC'21, Sec. 2.2), following Megatron-LM's ordering,
// and DualPipe (DeepSeek-V3, arXiv 2412.19437 Sec. 3.2.1), following deepseek-ai/DualPipe: half the
// micro-batches enter at rank 0 and run chunk 0 (piece s on rank s), half enter at rank pp-1 and run chunk 1
// (piece pp-1-s on rank s), and the steady state pairs a forward of one direction with a backward of the other.
//
// Zero-bubble schedules (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024) split each backward into B, the
// input gradient the previous stage waits for, and W, the weight gradient nobody waits for, and run W later, in
// the bubbles: zb-h1 by the paper's handcrafted order, zb-h2 (at most 2pp-1 micro-batches on a rank) and zb-v (a V:
// rank s holds pieces s and 2pp-1-s, under 1F1B's activation memory) by a greedy list schedule built from the
// units' relative times, as the paper builds them; dualpipe-v follows deepseek-ai/DualPipe's DualPipeV.
// pipedream-2bw and pipedream-async run 1F1B's order without the flush.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/workload/model_spec.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace cs {

/// Which part of a backward a unit computes: all of it, only the input gradient (B), or only the weight gradient (W).
enum class BackwardPart : std::uint8_t { whole, input, weight };

struct PipelineUnit {
  bool forward = true;
  /// The micro-batch; under DualPipe its index among its chunk's (direction's) micro-batches, 0 .. micro_batches/2 - 1.
  int micro_batch = 0;
  int chunk = 0;  ///< chunk on this rank (interleaved: virtual stage; DualPipe: direction); 0 otherwise
  /// A forward that runs merged with the backward after it in the order (`merge_forward_backward`).
  bool paired = false;
  /// A backward unit's part (BackwardPart::whole for forwards). A W always comes after its B on the same rank.
  BackwardPart part = BackwardPart::whole;
  [[nodiscard]] bool input_grad() const noexcept { return !forward && part != BackwardPart::weight; }
  [[nodiscard]] bool weight_grad() const noexcept { return !forward && part != BackwardPart::input; }
};

/// Relative times of a forward, an input gradient (B) and a weight gradient (W) through one chunk.
struct UnitTimes {
  double forward = 1.0, input_grad = 1.0, weight_grad = 1.0;
};

/// The units pipeline rank `stage` executes, in order, for `micro_batches` micro-batches. With
/// `merge_forward_backward` (1F1B schedules), Megatron-Core's merged forward-backward schedule for MoE
/// all-to-all overlap: one more forward in the warm-up, then every steady-state forward is paired with the
/// backward that follows it (a different micro-batch, so neither waits for the other). DualPipe pairs its own
/// steady-state forward-backward couples when `merge_forward_backward` is set, else runs them one after the other.
/// `times`: the relative times of a forward, a B and a W, for the schedules built by list scheduling from them
/// (zb-h2, zb-v); equal by default, as the zero-bubble paper's handcrafted schedules assume.
[[nodiscard]] std::vector<PipelineUnit> pipeline_order(const ParallelPlan& p, int stage, int micro_batches,
                                                       bool merge_forward_backward = false, const UnitTimes& times = {});

/// pipeline_order for every rank, in rank order (a list-scheduled order is built once for all of them).
[[nodiscard]] std::vector<std::vector<PipelineUnit>> pipeline_orders(const ParallelPlan& p, int micro_batches,
                                                                     bool merge_forward_backward = false,
                                                                     const UnitTimes& times = {});

/// The most activations rank `stage` holds at once when it runs `order`: a forward adds `chunk_bytes[chunk]` (any
/// unit, any scale), the unit that finishes that micro-batch's weight gradient on the chunk (a whole backward or W)
/// frees it; a B frees nothing (W still needs the layer inputs and the output gradients).
[[nodiscard]] double held_activations_peak(const std::vector<PipelineUnit>& order, const std::vector<double>& chunk_bytes);
/// The activations held at that peak (the first moment it is reached), and of them those whose B has run and whose
/// W has not (the part a split backward adds over a whole one).
struct HeldActivations {
  double total = 0, awaiting_weight_grad = 0;
};
[[nodiscard]] HeldActivations held_activations_at_peak(const std::vector<PipelineUnit>& order,
                                                       const std::vector<double>& chunk_bytes);

/// Weight versions a GPU of pipeline rank `stage` keeps: 2 under PipeDream-2BW (the one in use and the one being
/// updated), pp - stage under PipeDream (one per micro-batch in flight, weight stashing), else 1.
[[nodiscard]] int weight_versions(const ParallelPlan& p, int stage) noexcept;
/// How stale the weights a forward of rank `stage` uses are: PipeDream-2BW's gradients come from weights one
/// optimizer step old (delay 1), PipeDream's from weights pp - stage - 1 updates old (it updates after every
/// micro-batch); 0 for a flushed (synchronous) schedule.
[[nodiscard]] int weight_delay(const ParallelPlan& p, int stage) noexcept;

/// Whether forward and backward can run merged to overlap the EP all-to-all under this layout: an MoE model with
/// expert parallelism, and no pipeline, an interleaved one (Megatron-Core's condition) or DualPipe.
[[nodiscard]] bool layout_allows_ep_overlap(const ModelSpec& m, const ParallelPlan& p) noexcept;
/// Whether a step runs the merged forward-backward schedule: EP all-to-all overlap asked for, on a layout that
/// allows it.
[[nodiscard]] bool merges_forward_backward(const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t) noexcept;

}  // namespace cs
