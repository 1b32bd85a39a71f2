// The simulator's price of Megatron-Core's two GPT-OSS-only paths against their measurement on an H100 (run 7,
// profiles/h100-calibration/run7-gpt-oss-extras/gpt_oss_extras.json, calibrate/studies/gpt_oss_extras_study.py):
// the unfused YaRN RoPE on Q and K and the per-expert output-bias loop, at the shapes one GPU of a 64-GPU
// GPT-OSS 120B run sees (EP 8: 16 local experts; micro-batch 4 of 4,096 tokens). The operators of a GPT-OSS MoE
// layer, priced with profiles/h100-sxm.yaml's bandwidth-bound model, must give the measured GPU times of their
// kernels queued back to back, and launch as many kernels as the measurement counted.

#include <gtest/gtest.h>

#include <cmath>

#include "../workload/find_op.hpp"
#include "../workload/zoo_preset.hpp"
#include "measured_steps.hpp"
#include "sim/hardware/device_profile.hpp"
#include "sim/workload/layer_ops.hpp"

namespace cs {
namespace {

const nlohmann::json* find(const nlohmann::json& results, const std::string& op, const std::string& key, int value,
                           const std::string& key2, int value2) {
  for (const auto& r : results) {
    if (r["op"] == op && r[key].get<int>() == value && r[key2].get<int>() == value2) return &r;
  }
  return nullptr;
}

TEST(GptOssExtras, PricesMatchTheH100Measurement) {
  const auto results = testing::measured_results("h100-calibration/run7-gpt-oss-extras/gpt_oss_extras.json");
  const ModelSpec m = testing::zoo_preset("gpt-oss-120b");
  ASSERT_TRUE(m.expert_bias);
  ParallelPlan p;
  p.dp = 8;
  p.ep = 8;
  TrainingConfig t;
  t.seq_len = 4096;
  t.micro_batch = 4;
  const auto fwd = forward_ops(LayerPart::moe_layer, m, p, t);
  const auto bwd = backward_ops(fwd);
  const auto cost = make_cost_model(find_device_profile("h100-sxm"), std::nullopt);
  const auto ms = [&](const Op& op) { return cost->memory_bound(op.bytes).seconds() * 1e3; };

  // RoPE: Q (64 heads) and K (8 heads) of 16,384 tokens, measured one tensor at a time.
  const auto* q = find(results, "rope", "tokens", 16384, "heads", 64);
  const auto* k = find(results, "rope", "tokens", 16384, "heads", 8);
  ASSERT_TRUE(q && k);
  const double rope_fwd = ((*q)["gpu_forward_s"].get<double>() + (*k)["gpu_forward_s"].get<double>()) * 1e3;
  const double rope_all = ((*q)["gpu_forward_backward_s"].get<double>() + (*k)["gpu_forward_backward_s"].get<double>()) * 1e3;
  const Op& rope = testing::find_op(fwd, "RoPE, unfused (YaRN attention scaling)");
  const Op& rope_b = testing::find_op(bwd, "RoPE, unfused (YaRN attention scaling) backward");
  EXPECT_NEAR(ms(rope), rope_fwd, 0.10 * rope_fwd);
  EXPECT_NEAR(ms(rope_b), rope_all - rope_fwd, 0.10 * (rope_all - rope_fwd));
  EXPECT_EQ(rope.launches, (*q)["kernels_forward"].get<int>() + (*k)["kernels_forward"].get<int>());
  EXPECT_EQ(rope.launches + rope_b.launches,
            (*q)["kernels_forward_backward"].get<int>() + (*k)["kernels_forward_backward"].get<int>());

  // The bias loop: 16 experts of 4,096 rows of 2,880.
  const auto* b = find(results, "bias", "experts", 16, "rows_per_expert", 4096);
  ASSERT_TRUE(b);
  const Op& bias = testing::find_op(fwd, "expert output bias (per-expert loop)");
  const Op& bias_b = testing::find_op(bwd, "expert output bias (per-expert loop) backward");
  const double bias_fwd = (*b)["gpu_forward_s"].get<double>() * 1e3;
  const double bias_bwd = (*b)["gpu_forward_backward_s"].get<double>() * 1e3 - bias_fwd;
  EXPECT_NEAR(ms(bias), bias_fwd, 0.10 * bias_fwd);
  EXPECT_NEAR(ms(bias_b), bias_bwd, 0.10 * bias_bwd);
  EXPECT_EQ(bias.launches, (*b)["kernels_forward"].get<int>());
  EXPECT_EQ(bias.launches + bias_b.launches, (*b)["kernels_forward_backward"].get<int>());
}

}  // namespace
}  // namespace cs
