// GPT-OSS as Megatron-Core runs it: YaRN's concentration factor keeps RoPE out of Transformer Engine's fused
// kernel (six PyTorch passes over Q and K), and the experts' down-projection bias is added per token, scaled by
// its routing probability, in an eager per-expert loop in fp32. Models without them have neither operator.

#include <gtest/gtest.h>

#include "find_op.hpp"
#include "sim/workload/layer_ops.hpp"
#include "sim/workload/parallel_plan.hpp"
#include "zoo_preset.hpp"

namespace cs {
namespace {

using testing::find_op;

bool has_op(const std::vector<Op>& ops, const std::string& name) {
  for (const Op& op : ops) {
    if (op.name == name) return true;
  }
  return false;
}

TEST(GptOss, PresetsCarryYarnScalingAndExpertBiases) {
  for (const char* name : {"gpt-oss-120b", "gpt-oss-20b"}) {
    const ModelSpec m = testing::zoo_preset(name);
    EXPECT_NEAR(m.rope_mscale, 1.3466, 1e-4) << name;  // 0.1 ln 32 + 1
    EXPECT_TRUE(m.expert_bias) << name;
  }
  const ModelSpec q = testing::zoo_preset("qwen3-30b-a3b");
  EXPECT_DOUBLE_EQ(q.rope_mscale, 1.0);
  EXPECT_FALSE(q.expert_bias);
}

TEST(GptOss, UnfusedRopeAndTheBiasLoopArePricedPerElementAndPerExpert) {
  const ModelSpec m = testing::zoo_preset("gpt-oss-120b");
  ParallelPlan p;
  p.dp = 8;
  p.ep = 8;
  TrainingConfig t;
  t.seq_len = 4096;
  t.micro_batch = 1;
  const auto ops = forward_ops(LayerPart::moe_layer, m, p, t);
  // RoPE on 4,096 tokens of Q (64 heads x 64) and K (8 x 64): 42 bytes per element (measured, H100 run 7),
  // 12 kernels per tensor.
  const Op& rope = find_op(ops, "RoPE, unfused (YaRN attention scaling)");
  EXPECT_DOUBLE_EQ(rope.bytes.value(), 42.0 * 4096 * (64 * 64 + 8 * 64));
  EXPECT_EQ(rope.launches, 24);
  EXPECT_TRUE(rope.python_launches);
  // 16 local experts of 128 over EP 8; 4,096 tokens x top 4 rows of 2,880: 38 bytes per element forward
  // (measured), two kernels per expert and two more.
  const Op& bias = find_op(ops, "expert output bias (per-expert loop)");
  EXPECT_DOUBLE_EQ(bias.bytes.value(), 38.0 * 4096 * 4 * 2880);
  EXPECT_EQ(bias.launches, 2 * 16 + 2);
  EXPECT_TRUE(bias.python_launches);
  const auto back = backward_ops(ops);
  const Op& bias_back = find_op(back, "expert output bias (per-expert loop) backward");
  EXPECT_DOUBLE_EQ(bias_back.bytes.value(), 61.0 * 4096 * 4 * 2880);
  EXPECT_EQ(bias_back.launches, 8 * 16 + 5);
  EXPECT_EQ(find_op(back, "RoPE, unfused (YaRN attention scaling) backward").launches, 16);
  // A model without them (Qwen3-30B-A3B) has neither.
  const auto qwen = forward_ops(LayerPart::moe_layer, testing::zoo_preset("qwen3-30b-a3b"), p, t);
  EXPECT_FALSE(has_op(qwen, "RoPE, unfused (YaRN attention scaling)"));
  EXPECT_FALSE(has_op(qwen, "expert output bias (per-expert loop)"));
}

}  // namespace
}  // namespace cs
