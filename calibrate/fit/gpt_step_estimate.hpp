// The time of one single-GPU training step of the GPT in calibrate/pytorch/gpt_step.py, summed kernel by
// kernel from a cost model. It enumerates the same kernels that model runs (bias-free linears, flash
// attention, LayerNorm, GELU, residual adds, cross-entropy, fused AdamW over bf16 states) and counts each
// bandwidth-bound kernel's bytes; a kernel's backward moves twice its forward bytes. This is the check that
// a measured profile predicts a real step; the simulator's workload layer does the general case.
#pragma once

#include <cstdint>
#include <string>

#include "sim/hardware/compute_cost_model.hpp"
#include "sim/hardware/measured_fits.hpp"

namespace cs::fit {

struct GptConfig {
  std::string name;
  std::int64_t hidden = 0, layers = 0, heads = 0, seq = 0, batch = 0, vocab = 50304;
};

struct StepEstimate {
  Time gemm, attention, memory, optimizer;
  std::int64_t params = 0;
  [[nodiscard]] Time total() const { return gemm + attention + memory + optimizer; }
};

/// `adam`, when given, is the calibrated latency and bandwidth of the Adam-update kernel (profile
/// memory_ops.adam); without it the optimizer is costed as any bandwidth-bound kernel.
[[nodiscard]] StepEstimate estimate_gpt_step(const ComputeCostModel& model, const GptConfig& c,
                                             const LinearCost* adam = nullptr);

}  // namespace cs::fit
