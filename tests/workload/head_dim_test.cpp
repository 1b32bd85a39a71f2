// Attention heads wider than hidden/heads (Qwen3: 32 heads of 128 on a 2,048-wide model): the projections, the
// attention FLOPs, the parameters and the saved activations follow heads x head_dim, not the hidden size.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/workload/layer_ops.hpp"
#include "sim/workload/memory_model.hpp"
#include "sim/workload/model_spec.hpp"
#include "sim/workload/model_zoo.hpp"

namespace cs {
namespace {

// A Qwen3-30B-A3B-shaped dense layer: h = 2048, 32 query heads and 4 KV heads of 128.
ModelSpec qwen_like(std::int64_t head_width) {
  ModelSpec m;
  m.layers = 2;
  m.hidden = 2048;
  m.heads = 32;
  m.kv_heads = 4;
  m.head_width = head_width;
  m.ffn_hidden = 6144;
  m.gated_ffn = true;
  m.vocab = 1000;
  m.seq_len = 4096;
  return m;
}

const Op& find(const std::vector<Op>& ops, const std::string& name) {
  const auto it = std::find_if(ops.begin(), ops.end(), [&](const Op& o) { return o.name == name; });
  if (it == ops.end()) throw std::runtime_error("no op " + name);
  return *it;
}

TEST(HeadDim, DefaultsToHiddenOverHeads) {
  const ModelSpec m = qwen_like(0);
  EXPECT_EQ(m.head_dim(), 64);
  EXPECT_EQ(m.q_dim(), 2048);
  EXPECT_EQ(m.k_dim(), 256);
  EXPECT_EQ(m.v_dim(), 256);
  EXPECT_EQ(m.o_dim(), 2048);
}

// Parameters h(q + 2kv) + qh: 2048 x (4096 + 2 x 512) + 4096 x 2048 = 10,485,760 + 8,388,608 = 18,874,368.
// With 64-wide heads: 2048 x (2048 + 512) + 2048^2 = 5,242,880 + 4,194,304 = 9,437,184.
TEST(HeadDim, AttentionParametersFollowTheQueryWidth) {
  EXPECT_DOUBLE_EQ(qwen_like(128).attention_params(), 18'874'368.0);
  EXPECT_DOUBLE_EQ(qwen_like(0).attention_params(), 9'437'184.0);
}

// On TP 2, micro-batch 1 x 4,096 tokens: QKV projection N = 4096/2 + 2 x (4/2 x 128) = 2,560, K = h = 2048;
// output projection N = h = 2048, K = 4096/2 = 2048; attention on 16 heads of 128; attention model FLOPs
// 4 x 1 x 4096 x 4096 x 4096 / 2 = 137,438,953,472.
TEST(HeadDim, ProjectionsAndAttentionUseHeadsTimesHeadDim) {
  ParallelPlan p;
  p.tp = 2;
  TrainingConfig t;
  t.seq_len = 4096;
  const auto ops = forward_ops(LayerPart::dense_layer, qwen_like(128), p, t);
  const Op& qkv = find(ops, "QKV projection");
  EXPECT_EQ(qkv.gemm.n, 2560);
  EXPECT_EQ(qkv.gemm.k, 2048);
  const Op& out = find(ops, "attention output projection");
  EXPECT_EQ(out.gemm.n, 2048);
  EXPECT_EQ(out.gemm.k, 2048);
  const Op& attn = find(ops, "attention");
  EXPECT_EQ(attn.attention.head_dim, 128);
  EXPECT_DOUBLE_EQ(attn.model_flops.value(), 137'438'953'472.0);
}

// training.attention picks the fused kernel family the attention op is priced as (cuDNN's for Transformer Engine on
// Hopper+), in both directions; the FLOPs do not change with it.
TEST(HeadDim, AttentionKernelFollowsTheTrainingConfig) {
  ParallelPlan p;
  TrainingConfig t;
  t.seq_len = 4096;
  const auto flash = forward_ops(LayerPart::dense_layer, qwen_like(128), p, t);
  EXPECT_EQ(find(flash, "attention").attention.kernel, FusedAttention::flash);
  t.attention = AttentionKernel::cudnn;
  const auto cudnn = forward_ops(LayerPart::dense_layer, qwen_like(128), p, t);
  EXPECT_EQ(find(cudnn, "attention").attention.kernel, FusedAttention::cudnn);
  EXPECT_EQ(find(cudnn, "attention").model_flops, find(flash, "attention").model_flops);
  EXPECT_EQ(find(backward_ops(cudnn), "attention backward").attention.kernel, FusedAttention::cudnn);
}

// Saved activations inside the attention TP region: Q and the attention output are 2q bytes per token each
// (not 2h): the 128-wide model keeps 4 x (4096 - 2048) = 8,192 more bytes per token, / tp 1, x 4,096 tokens.
TEST(HeadDim, SavedActivationsFollowTheQueryWidth) {
  ParallelPlan p;
  TrainingConfig t;
  t.seq_len = 4096;
  const double wide = activation_bytes_per_layer(qwen_like(128), p, t, LayerKind::dense).value();
  const double narrow = activation_bytes_per_layer(qwen_like(0), p, t, LayerKind::dense).value();
  // K and V (4 kv bytes per token) widen too: 4 x (512 - 256) = 1,024 more.
  EXPECT_DOUBLE_EQ(wide - narrow, (8192.0 + 1024.0) * 4096.0);
}

TEST(HeadDim, Qwen3PresetsDeclareTheirHeadWidth) {
  KnownDimensions d;
  d.hidden = 2048;
  d.layers = 48;
  d.heads = 32;
  d.kv_heads = 4;
  d.experts = 128;
  d.name = "Qwen3_30B_a3B";
  const auto preset = match_preset(d);
  ASSERT_TRUE(preset.has_value());
  EXPECT_EQ(preset->first, "qwen3-30b-a3b");
  EXPECT_EQ(preset->second.head_dim(), 128);
  EXPECT_EQ(preset->second.q_dim(), 4096);
}

}  // namespace
}  // namespace cs
