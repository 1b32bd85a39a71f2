// Megatron-Core's TEGroupedMLP under fp8 pads each expert's rows to the quantised GEMM's alignment (Fp8Padding) and
// unpads the output (Fp8Unpadding): one copy of the routed rows each way, forward and backward (layer_ops.cpp).
// Measured on one H100 (H100 run 12, profiles/h100-calibration/run12-mcore-merged: Megatron-Core 0.15.4 on
// Transformer Engine 2.9, Qwen3-30B-A3B's layer with 16 local experts, top-8, force-balanced dropless routing,
// 2 x 4,096 tokens, fp8 current scaling): TE's multi_padding_kernel and multi_unpadding_kernel, per layer the
// 6-layer model's kernels less the 2-layer one's over 4.
#include <gtest/gtest.h>

#include <cstdio>

#include "../workload/find_op.hpp"
#include "measured_steps.hpp"
#include "sim/hardware/device_profile.hpp"
#include "sim/workload/layer_ops.hpp"

namespace cs {
namespace {

ModelSpec run12_layer() {
  ModelSpec m;
  m.name = "run12";
  m.layers = 2;
  m.hidden = 2048;
  m.heads = 32;
  m.kv_heads = 4;
  m.head_width = 128;
  m.gated_ffn = true;
  m.norm = NormKind::rmsnorm;
  m.vocab = 32768;
  m.seq_len = 4096;
  m.ffn_hidden = 6144;
  m.experts = 16;
  m.top_k = 8;
  m.expert_ffn_hidden = 768;
  return m;
}

TrainingConfig run12_training(DType precision) {
  TrainingConfig t;
  t.micro_batch = 2;
  t.global_batch = 8;
  t.seq_len = 4096;
  t.precision = precision;
  t.fp8_recipe = Fp8Recipe::current;
  t.grouped_launch = GroupedLaunch::native;
  return t;
}

double total_ms(const std::vector<Op>& ops, const ComputeCostModel& cost, const std::string& prefix) {
  double ms = 0;
  for (const Op& op : ops) {
    if (op.kind == OpKind::memory && op.name.starts_with(prefix)) ms += cost.memory_bound(op.bytes).seconds() * 1e3;
  }
  return ms;
}

TEST(Fp8Padding, CopiesTheRoutedRowsOnlyWhereTheGroupedMlpPadsThem) {
  const ModelSpec m = run12_layer();
  ParallelPlan p;
  const auto names = [&](const TrainingConfig& t) {
    int n = 0;
    for (const Op& op : forward_ops(LayerPart::moe_layer, m, p, t)) n += op.name.starts_with("expert rows ") ? 1 : 0;
    return n;
  };
  TrainingConfig fp8 = run12_training(DType::fp8);
  EXPECT_EQ(names(fp8), 2);  // padded in, unpadded out
  const auto ops = forward_ops(LayerPart::moe_layer, m, p, fp8);
  const Op& pad = testing::find_op(ops, "expert rows padded for fp8");
  // Every routed row (2 x 4,096 tokens x top-8) of 2,048 bf16 values read and written once; the gradient the same.
  EXPECT_DOUBLE_EQ(pad.bytes.value(), 2.0 * 65536 * 2048 * 2);
  EXPECT_DOUBLE_EQ(pad.backward_scale, 1.0);
  EXPECT_EQ(names(run12_training(DType::bf16)), 0);  // 16-bit GEMMs need no alignment
  TrainingConfig padded_router = fp8;
  padded_router.moe_router_padding = true;
  EXPECT_EQ(names(padded_router), 0);
  TrainingConfig dropping = fp8;
  dropping.moe_capacity_factor = 1.0;
  EXPECT_EQ(names(dropping), 0);  // counts padded to the capacity
  TrainingConfig python_loop = fp8;
  python_loop.grouped_launch = GroupedLaunch::python;
  EXPECT_EQ(names(python_loop), 0);  // no Transformer Engine grouped MLP
}

TEST(Fp8Padding, PricedAsTheMeasuredPaddingKernels) {
  const nlohmann::json results = testing::measured_results("h100-calibration/run12-mcore-merged/mcore_te_merged.json");
  double us[2] = {0, 0};  // 2- and 6-layer models, per micro-batch
  for (const auto& e : results) {
    if (e["a2a_overlap"] || e["precision"] != "fp8cs" || e["seq"] != 4096) continue;
    for (const auto& k : e["kernels_by_name"]) {
      const std::string name = k["name"];
      if (name.find("multi_padding_kernel") != std::string::npos ||
          name.find("multi_unpadding_kernel") != std::string::npos) {
        us[e["layers"].get<int>() == 6 ? 1 : 0] += k["us_per_micro_batch"].get<double>();
      }
    }
  }
  ASSERT_GT(us[0], 0.0);
  const double measured_ms = (us[1] - us[0]) / 4 / 1e3;
  const auto cost = make_cost_model(find_device_profile("h100-sxm"));
  const ModelSpec m = run12_layer();
  const auto f = forward_ops(LayerPart::moe_layer, m, ParallelPlan{}, run12_training(DType::fp8));
  const double predicted_ms = total_ms(f, *cost, "expert rows ") + total_ms(backward_ops(f), *cost, "expert rows ");
  std::printf("fp8 padding per layer: predicted %.3f ms, measured %.3f ms\n", predicted_ms, measured_ms);
  EXPECT_NEAR(predicted_ms / measured_ms, 1.0, 0.15);
}

}  // namespace
}  // namespace cs
