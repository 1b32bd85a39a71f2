// What the optimizer keeps per parameter (TrainingConfig::optimizer_moments, master_weights): Adam's two moments
// and the master weights, fp32 by default, bf16 where a recipe keeps them so; the memory model and the optimizer
// step's traffic follow.
#include <gtest/gtest.h>

#include "sim/workload/memory_model.hpp"
#include "zoo_preset.hpp"

namespace cs {
namespace {

TEST(OptimizerState, BytesPerParameterFollowTheStatesDataTypes) {
  TrainingConfig t;
  EXPECT_EQ(optimizer_state_bytes(t), 12.0);  // fp32 m, v and master weights
  t.optimizer_moments = DType::bf16;          // DeepSeek-V3: bf16 moments, fp32 master
  EXPECT_EQ(optimizer_state_bytes(t), 8.0);
  t.master_weights = DType::bf16;             // NeMo distributed_fused_adam, dtype bf16
  EXPECT_EQ(optimizer_state_bytes(t), 6.0);
  t.precision = DType::fp32;                  // fp32 training updates its working weights: m and v only
  EXPECT_EQ(optimizer_state_bytes(t), 8.0);
}

// Nemotron-4 340B on 128 H100 (TP 8, PP 8, DP 2, distributed optimizer): the sharded states shrink by half with
// bf16 moments and master weights, and nothing else changes.
TEST(OptimizerState, MemoryModelShardsWhatTheOptimizerKeeps) {
  const ModelSpec m = testing::zoo_preset("nemotron4-340b");
  ParallelPlan p;
  p.tp = 8;
  p.pp = 8;
  p.dp = 2;
  p.virtual_stages = 12;
  p.schedule = PipelineSchedule::interleaved;
  p.sequence_parallel = true;
  p.zero_stage = 1;
  TrainingConfig t;
  t.seq_len = 4096;
  t.global_batch = 32;
  const MemoryBreakdown fp32 = peak_memory_per_gpu(m, p, t);
  t.optimizer_moments = t.master_weights = DType::bf16;
  const MemoryBreakdown bf16 = peak_memory_per_gpu(m, p, t);
  EXPECT_NEAR(bf16.optimizer.value() / fp32.optimizer.value(), 6.0 / 12.0, 1e-12);
  EXPECT_EQ(bf16.weights.value(), fp32.weights.value());
  EXPECT_EQ(bf16.gradients.value(), fp32.gradients.value());
  EXPECT_EQ(bf16.activations.value(), fp32.activations.value());
  EXPECT_NEAR(fp32.optimizer.value(), params_per_gpu(m, p, fp32.stage) * 12.0 / 2, 1.0);
}

}  // namespace
}  // namespace cs
