// Two pipeline units run merged on two streams, as Megatron-Core's merged forward-backward 1F1B runs a forward
// and the next backward of different micro-batches to hide the MoE all-to-all (overlap_moe_expert_parallel_comm;
// arXiv 2603.07685 Sec. 4.2.3: one micro-batch's dispatch and combine run on a communication stream while the
// other's attention and expert MLP run on the compute stream).
#pragma once

#include <vector>

#include "sim/core/units.hpp"

namespace cs {

/// A stretch of a unit on one stream: compute-stream work (kernels, TP and CP collectives) or an EP all-to-all.
struct Phase {
  Time time;
  bool ep = false;
};

/// Appends `p` to `phases`, joining it to the last phase when both are on the same stream.
void append_phase(std::vector<Phase>& phases, Phase p);

/// The time two chains of phases take on one compute and one communication stream. Each chain runs its phases
/// in order; a stream runs one phase at a time and, when it falls idle, takes the ready phase of the chain
/// that has waited longer. While an all-to-all runs, compute proceeds at 1 / (1 + `compute_slowdown`) of its
/// speed (the SMs and HBM traffic the communication kernel takes).
[[nodiscard]] Time merged_time(const std::vector<Phase>& a, const std::vector<Phase>& b, double compute_slowdown);

}  // namespace cs
