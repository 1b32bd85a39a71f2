// Transformer Engine's fp8 kernels around Megatron-Core's grouped MLP, against H100 run 12. TEGroupedMLP under
// fp8 pads each expert's rows to the quantised GEMM's alignment (Fp8Padding) and unpads the output (Fp8Unpadding):
// one copy of the routed rows each way, forward and backward (layer_ops.cpp).
// Measured on one H100 (H100 run 12, profiles/h100-calibration/run12-mcore-merged: Megatron-Core 0.15.4 on
// Transformer Engine 2.9, Qwen3-30B-A3B's layer with 16 local experts, top-8, force-balanced dropless routing,
// 2 x 4,096 tokens, fp8 current scaling): TE's multi_padding_kernel and multi_unpadding_kernel, per layer the
// 6-layer model's kernels less the 2-layer one's over 4.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "../workload/find_op.hpp"
#include "measured_steps.hpp"
#include "sim/hardware/device_profile.hpp"
#include "sim/workload/layer_ops.hpp"

namespace cs {
namespace {

ModelSpec run12_layer() { return testing::mcore_te_study_layer(2, true, 4096); }

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

/// The memory-bound ops of `ops` whose name `match`es, ms, priced as the replay prices them (UnitCosts::cost_of):
/// the op's bytes, and the kernel's fixed time for each further launch.
template <class Match>
double total_ms(const std::vector<Op>& ops, const ComputeCostModel& cost, const Match& match) {
  double ms = 0;
  for (const Op& op : ops) {
    if (op.kind != OpKind::memory || !match(op.name)) continue;
    ms += (cost.memory_bound(op.bytes) + cost.kernel_latency() * std::max(0, op.launches - 1)).seconds() * 1e3;
  }
  return ms;
}

/// Per layer, us of the run-12 kernels (fp8, plain schedule, 2 x 4,096) whose names contain any of `parts`.
double measured_layer_us(const std::vector<std::string>& parts) {
  const nlohmann::json results = testing::measured_results("h100-calibration/run12-mcore-merged/mcore_te_merged.json");
  double us[2] = {0, 0};  // 2- and 6-layer models, per micro-batch
  for (const auto& e : results) {
    if (e["a2a_overlap"] || e["precision"] != "fp8cs" || e["seq"] != 4096) continue;
    for (const auto& k : e["kernels_by_name"]) {
      const std::string name = k["name"];
      for (const auto& part : parts) {
        if (name.find(part) != std::string::npos) {
          us[e["layers"].get<int>() == 6 ? 1 : 0] += k["us_per_micro_batch"].get<double>();
          break;
        }
      }
    }
  }
  EXPECT_GT(us[0], 0.0);
  return (us[1] - us[0]) / 4;
}

TEST(TeFp8MoeKernels, CopiesTheRoutedRowsOnlyWhereTheGroupedMlpPadsThem) {
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

TEST(TeFp8MoeKernels, PricedAsTheMeasuredPaddingKernels) {
  const double measured_ms = measured_layer_us({"multi_padding_kernel", "multi_unpadding_kernel"}) / 1e3;
  const auto cost = make_cost_model(find_device_profile("h100-sxm"));
  const auto f = forward_ops(LayerPart::moe_layer, run12_layer(), ParallelPlan{}, run12_training(DType::fp8));
  const auto rows = [](const std::string& n) { return n.starts_with("expert rows "); };
  const double predicted_ms = total_ms(f, *cost, rows) + total_ms(backward_ops(f), *cost, rows);
  std::printf("fp8 padding per layer: predicted %.3f ms, measured %.3f ms\n", predicted_ms, measured_ms);
  EXPECT_NEAR(predicted_ms / measured_ms, 1.0, 0.15);
}

// The layer's fp8 quantisation under current scaling (Transformer Engine's zero_amax, amax, compute_scale_from_amax
// and cast_transpose kernels: 1.72 ms per layer, 77 of each of the first three) against the model's casts, whose
// per-expert kernels each pay the kernel's fixed time (UnitCosts::cost_of, kernel_latency): within 15%.
TEST(TeFp8MoeKernels, QuantisationKernelsNearTheMeasured) {
  const double measured_ms =
      measured_layer_us({"amax_kernel", "compute_scale_from_amax", "cast_transpose"}) / 1e3;
  const auto cost = make_cost_model(find_device_profile("h100-sxm"));
  const auto f = forward_ops(LayerPart::moe_layer, run12_layer(), ParallelPlan{}, run12_training(DType::fp8));
  const auto casts = [](const std::string& n) { return n.find(" cast") != std::string::npos; };
  const double predicted_ms = total_ms(f, *cost, casts) + total_ms(backward_ops(f), *cost, casts);
  std::printf("fp8 quantisation per layer: predicted %.3f ms, measured %.3f ms\n", predicted_ms, measured_ms);
  EXPECT_NEAR(predicted_ms / measured_ms, 1.0, 0.15);
}

// Qwen3's QK norm: one RMSNorm pass over the layer's queries (32 heads of 128) and keys (4 KV heads of 128) at
// 8,192 tokens, read and written once; none without it.
TEST(TeFp8MoeKernels, QkNormPassesOverTheQueriesAndKeys) {
  ModelSpec m = run12_layer();
  m.qk_norm = true;
  const auto ops = forward_ops(LayerPart::moe_layer, m, ParallelPlan{}, run12_training(DType::bf16));
  EXPECT_DOUBLE_EQ(testing::find_op(ops, "QK norm").bytes.value(), 2.0 * 8192 * (32 * 128 + 4 * 128) * 2);
  m.qk_norm = false;
  EXPECT_THROW((void)testing::find_op(forward_ops(LayerPart::moe_layer, m, ParallelPlan{}, run12_training(DType::bf16)),
                                      "QK norm"),
               std::runtime_error);
}

}  // namespace
}  // namespace cs
