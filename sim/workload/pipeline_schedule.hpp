// The order in which one pipeline rank runs its forward and backward passes over micro-batches and model
// chunks: GPipe (all forwards, then all backwards), 1F1B (PipeDream-Flush; Narayanan et al. 2021) and
// interleaved 1F1B with virtual stages (Narayanan et al. SC'21, Sec. 2.2), following Megatron-LM's ordering.
#pragma once

#include <vector>

#include "sim/workload/parallel_plan.hpp"

namespace cs {

struct PipelineUnit {
  bool forward = true;
  int micro_batch = 0;
  int chunk = 0;  ///< virtual chunk on this rank (0 unless interleaved)
};

/// The units pipeline rank `stage` executes, in order, for `micro_batches` micro-batches.
[[nodiscard]] std::vector<PipelineUnit> pipeline_order(const ParallelPlan& p, int stage, int micro_batches);

}  // namespace cs
