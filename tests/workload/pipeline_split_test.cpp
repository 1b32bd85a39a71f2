// Uneven pipeline splits: Megatron-Core's embedding/loss accounting and explicit first/last-stage layer counts.
#include <gtest/gtest.h>

#include <numeric>

#include "sim/workload/parallel_plan.hpp"

namespace cs {
namespace {

ModelSpec layers(int n) {
  ModelSpec m;
  m.layers = n;
  return m;
}

ParallelPlan interleaved(int pp, int v) {
  ParallelPlan p;
  p.pp = pp;
  p.virtual_stages = v;
  p.schedule = v > 1 ? PipelineSchedule::interleaved : PipelineSchedule::one_f_one_b;
  return p;
}

TEST(PipelineSplit, EvenSplitIsUnchanged) {
  const auto c = virtual_stage_layer_counts(layers(96), interleaved(8, 12));  // 96 / 96 = 1 layer per chunk
  ASSERT_EQ(c.size(), 96u);
  for (const int n : c) EXPECT_EQ(n, 1);
  EXPECT_EQ(virtual_stage_layers(layers(96), interleaved(8, 12), 95), (std::pair<int, int>{95, 96}));
}

// Llama 3.1 405B in NeMo: 126 layers + embedding + loss = 128 units on PP 8 x VPP 8 = 64 virtual stages, 2 each;
// the first virtual stage is embedding + 1 layer, the last 1 layer + loss.
TEST(PipelineSplit, EmbeddingAndLossCountAsLayers) {
  ParallelPlan p = interleaved(8, 8);
  EXPECT_TRUE(virtual_stage_layer_counts(layers(126), p).size() == 64u);
  p.embedding_in_split = p.loss_in_split = true;
  const auto c = virtual_stage_layer_counts(layers(126), p);
  ASSERT_EQ(c.size(), 64u);
  EXPECT_EQ(c.front(), 1);
  EXPECT_EQ(c.back(), 1);
  for (std::size_t i = 1; i + 1 < c.size(); ++i) EXPECT_EQ(c[i], 2);
  EXPECT_EQ(std::accumulate(c.begin(), c.end(), 0), 126);
  EXPECT_EQ(virtual_stage_layers(layers(126), p, 1), (std::pair<int, int>{1, 3}));
}

// The 30-layer proxy on PP 4 x VPP 8: 32 units over 32 virtual stages; the first chunk is the embedding alone and
// the last the loss alone. Without the accounting 30 layers cannot fill 32 chunks.
TEST(PipelineSplit, ReducedLayerProxyLeavesEmbeddingAndLossChunksEmpty) {
  ParallelPlan p = interleaved(4, 8);
  EXPECT_TRUE(virtual_stage_layer_counts(layers(30), p).empty());
  p.embedding_in_split = p.loss_in_split = true;
  const auto c = virtual_stage_layer_counts(layers(30), p);
  ASSERT_EQ(c.size(), 32u);
  EXPECT_EQ(c.front(), 0);
  EXPECT_EQ(c.back(), 0);
  EXPECT_EQ(std::accumulate(c.begin(), c.end(), 0), 30);
}

// 61 layers (DeepSeek-V3) with 4 on the first and 1 on the last of 16 ranks: 56 over the 14 middle ranks = 4 each.
TEST(PipelineSplit, ExplicitFirstAndLastStageLayers) {
  ParallelPlan p = interleaved(16, 1);
  p.first_stage_layers = 4;
  p.last_stage_layers = 1;
  const auto c = virtual_stage_layer_counts(layers(61), p);
  ASSERT_EQ(c.size(), 16u);
  EXPECT_EQ(c.front(), 4);
  EXPECT_EQ(c.back(), 1);
  for (std::size_t i = 1; i + 1 < c.size(); ++i) EXPECT_EQ(c[i], 4);
  // With virtual stages, rank 0's 4 layers spread over its 2 chunks (vs 0 and vs 16).
  ParallelPlan v = interleaved(16, 2);
  v.first_stage_layers = 4;
  v.last_stage_layers = 2;
  const auto cv = virtual_stage_layer_counts(layers(62), v);
  ASSERT_EQ(cv.size(), 32u);
  EXPECT_EQ(cv[0] + cv[16], 4);
  EXPECT_EQ(cv[15] + cv[31], 2);
  EXPECT_EQ(std::accumulate(cv.begin(), cv.end(), 0), 62);
  p.first_stage_layers = 70;  // more than the model has
  EXPECT_TRUE(virtual_stage_layer_counts(layers(61), p).empty());
}

// check_plan: MoE parallel folding. DeepSeek-V3 on 1,024 GPUs: TP 2 x PP 16 x DP 32 with EP 64 and expert TP 1
// (64 expert ranks tile the 64 ranks of a stage) runs although EP 64 > DP 32; EP 64 with expert TP 2 does not fit.
TEST(PipelineSplit, MoeParallelFoldingFollowsMegatronCoresConstraint) {
  ModelSpec m;
  m.layers = 61;
  m.hidden = 7168;
  m.heads = 128;
  m.kv_heads = 128;
  m.ffn_hidden = 18432;
  m.experts = 256;
  m.top_k = 8;
  m.expert_ffn_hidden = 2048;
  m.vocab = 129280;
  m.seq_len = 4096;
  ParallelPlan p;
  p.tp = 2;
  p.pp = 16;
  p.dp = 32;
  p.ep = 64;
  p.expert_tp = 1;
  p.sequence_parallel = true;
  TrainingConfig t;
  t.seq_len = 4096;
  t.global_batch = 8192;
  EXPECT_NO_THROW(check_plan({}, m, p, t, 1024, 8));
  p.expert_tp = 2;
  EXPECT_THROW(check_plan({}, m, p, t, 1024, 8), InputError);
}

}  // namespace
}  // namespace cs
