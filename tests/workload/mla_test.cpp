// Multi-head latent attention (DeepSeek-V2/V3): the projections go through low-rank latents, the query/key heads
// carry a rotary part (128 + 64 = 192 wide) and the value heads stay 128 wide. Parameters, operators and FLOPs
// follow those widths; the numbers below are worked by hand from the DeepSeek-V3 dimensions.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/core/error.hpp"
#include "sim/input/input_node.hpp"
#include "sim/workload/layer_ops.hpp"
#include "sim/workload/model_spec.hpp"
#include "sim/workload/model_zoo.hpp"
#include "find_op.hpp"
#include "zoo_preset.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace cs {
namespace {

using testing::deepseek;

using testing::find_op;

TEST(Mla, WidthsOfTheDeepSeekV3Preset) {
  const ModelSpec m = deepseek();
  ASSERT_TRUE(m.is_mla());
  EXPECT_EQ(m.qk_head_dim(), 192);
  EXPECT_EQ(m.v_head_dim(), 128);
  EXPECT_EQ(m.q_dim(), 128 * 192);
  EXPECT_EQ(m.k_dim(), 128 * 192);
  EXPECT_EQ(m.v_dim(), 128 * 128);
  EXPECT_EQ(m.o_dim(), 128 * 128);
  // Per query/key pair, forward: 2 x 128 heads x (192 + 128) = 81,920 FLOPs.
  EXPECT_DOUBLE_EQ(m.attention_pair_flops(), 81'920.0);
}

// Query path 7168 x 1536 + 1536 x 24576 = 11,010,048 + 37,748,736; key/value latent 7168 x (512 + 64) =
// 4,128,768 and its up projection 512 x 128 x (128 + 128) = 16,777,216; output 16384 x 7168 = 117,440,512.
// Sum 187,105,280. The whole model comes to DeepSeek-V3's published 671B (without its MTP module).
TEST(Mla, ParametersFollowTheLatentProjections) {
  const ModelSpec m = deepseek();
  EXPECT_DOUBLE_EQ(m.attention_params(), 187'105'280.0);
  EXPECT_NEAR(m.total_params() / 1e9, 671.0, 0.5);
}

// TP 2, micro-batch 1 of 4,096 tokens: the down projections are whole on each rank, the up projections and the
// heads are split; the attention kernel sees 64 heads of the FLOP-equivalent width (192 + 128) / 2 = 160.
TEST(Mla, OperatorsUnderTensorParallelism) {
  const ModelSpec m = deepseek();
  ParallelPlan p;
  p.tp = 2;
  p.sequence_parallel = true;
  TrainingConfig t;
  t.seq_len = 4096;
  const auto ops = forward_ops(LayerPart::dense_layer, m, p, t);
  const Op& qd = find_op(ops, "Q down projection");
  EXPECT_EQ(qd.gemm.m, 4096);
  EXPECT_EQ(qd.gemm.n, 1536);
  EXPECT_EQ(qd.gemm.k, 7168);
  // Replicated on both TP ranks: each counts half of it as model FLOPs, so the ranks together count it once.
  EXPECT_DOUBLE_EQ(qd.model_flops.value(), 2.0 * 4096 * 1536 * 7168 / 2.0);
  EXPECT_EQ(find_op(ops, "Q up projection").gemm.n, 64 * 192);
  EXPECT_EQ(find_op(ops, "Q up projection").gemm.k, 1536);
  EXPECT_EQ(find_op(ops, "KV down projection").gemm.n, 512 + 64);
  EXPECT_EQ(find_op(ops, "KV up projection").gemm.n, 64 * 256);
  EXPECT_EQ(find_op(ops, "KV up projection").gemm.k, 512);
  EXPECT_EQ(find_op(ops, "attention output projection").gemm.k, 64 * 128);
  const Op& a = find_op(ops, "attention");
  EXPECT_EQ(a.attention.heads, 64);
  EXPECT_EQ(a.attention.head_dim, 160);
  // Megatron's convention (full score matrix): 4096 x 4096 x 81,920 / 2 ranks.
  EXPECT_DOUBLE_EQ(a.model_flops.value(), 4096.0 * 4096.0 * 81'920.0 / 2.0);
  // Every projection's model FLOPs together: 2 x tokens x attention parameters / TP.
  double projections = 0;
  for (const char* n : {"Q down projection", "Q up projection", "KV down projection", "KV up projection",
                        "attention output projection"}) {
    projections += find_op(ops, n).model_flops.value();
  }
  EXPECT_DOUBLE_EQ(projections, 2.0 * 4096 * m.attention_params() / 2.0);
}

TEST(Mla, LatentDimensionsWithoutALatentAreRefused) {
  try {
    (void)parse_model_spec(InputNode::parse("layers: 2\nhidden: 512\nheads: 4\nvocab: 100\nseq_len: 64\nq_lora_rank: 64\n", "m.yaml"));
    FAIL() << "q_lora_rank without kv_lora_rank was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("m.yaml:6"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("kv_lora_rank"), std::string::npos) << e.what();
  }
  try {
    (void)parse_model_spec(InputNode::parse("layers: 2\nhidden: 512\nheads: 4\nkv_heads: 2\nvocab: 100\nseq_len: 64\nkv_lora_rank: 64\n", "m.yaml"));
    FAIL() << "MLA with grouped key/value heads was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("m.yaml:4"), std::string::npos) << e.what();
  }
}

// Grouped expert GEMMs: one launch per local expert, and under fp8 current scaling four quantisation kernels per
// expert for each input; delayed scaling fuses the casts into one.
TEST(GroupedLaunches, ExpertGemmsLaunchOncePerLocalExpert) {
  ModelSpec m;
  m.layers = 2;
  m.hidden = 512;
  m.heads = 4;
  m.kv_heads = 4;
  m.ffn_hidden = 1024;
  m.vocab = 100;
  m.seq_len = 64;
  m.experts = 8;
  m.top_k = 2;
  m.expert_ffn_hidden = 256;
  m.gated_ffn = true;
  ParallelPlan p;
  p.dp = 2;
  p.ep = 2;
  TrainingConfig t;
  t.seq_len = 64;
  t.precision = DType::fp8;
  t.fp8_recipe = Fp8Recipe::current;
  const auto ops = forward_ops(LayerPart::moe_layer, m, p, t);
  EXPECT_EQ(find_op(ops, "expert up+gate").launches, 4);
  EXPECT_EQ(find_op(ops, "expert down").launches, 4);
  EXPECT_EQ(find_op(ops, "expert up+gate fp8 cast").launches, 16);
  EXPECT_EQ(find_op(ops, "QKV projection fp8 cast").launches, 1);
  const auto back = backward_ops(ops);
  EXPECT_EQ(find_op(back, "expert down dgrad").launches, 4);
  EXPECT_EQ(find_op(back, "expert down wgrad").launches, 4);
  // Received rows regrouped by local expert after the dispatch and restored before the combine:
  // 64 tokens x top 2 = 128 rows x 512 x 2 bytes, read and written.
  EXPECT_DOUBLE_EQ(find_op(ops, "received tokens sorted by expert").bytes.value(), 2.0 * 128 * 512 * 2);
  t.fp8_recipe = Fp8Recipe::delayed;
  EXPECT_EQ(find_op(forward_ops(LayerPart::moe_layer, m, p, t), "expert up+gate fp8 cast").launches, 1);
}

}  // namespace
}  // namespace cs
