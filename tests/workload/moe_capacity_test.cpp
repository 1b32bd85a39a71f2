// Token dropping (training.moe_capacity_factor; Megatron-Core moe_expert_capacity_factor with the expert inputs
// padded to capacity) against the dropless dispatcher: what the experts compute, what the all-to-all carries and
// whether the host waits for the token counts.
#include <gtest/gtest.h>

#include <string>

#include "find_op.hpp"
#include "sim/workload/layer_ops.hpp"
#include "zoo_preset.hpp"

namespace cs {
namespace {

struct Qwen3MoeLayer {
  ModelSpec m = testing::zoo_preset("qwen3-30b-a3b");
  ParallelPlan p;
  TrainingConfig t;
  Qwen3MoeLayer() {
    p.dp = 8;
    p.ep = 8;
    t.seq_len = 4096;
    t.micro_batch = 1;
  }
  [[nodiscard]] std::vector<Op> ops() const { return forward_ops(LayerPart::moe_layer, m, p, t); }
};

// 4,096 tokens x top-8 = 32,768 copies leave each rank; balanced, each of its 16 experts computes 2,048 rows.
TEST(MoeCapacity, DroplessRowsFollowTheBusiestRankAndTheHostWaitsForTheCounts) {
  Qwen3MoeLayer l;
  l.t.moe_load_imbalance = 1.5;
  const auto ops = l.ops();
  EXPECT_EQ(testing::find_op(ops, "expert up+gate").gemm.m, 3072);  // 1.5 x 2,048
  EXPECT_DOUBLE_EQ(testing::find_op(ops, "EP dispatch all-to-all").bytes.value(), 32768.0 * 2048 * 2 * 1.5);
  EXPECT_TRUE(testing::find_op(ops, "EP dispatch all-to-all").host_sync);
}

// With a capacity factor the padded capacity is what every rank computes and sends, whatever the routing's
// imbalance (the busiest rank drops the excess, the others pad), and the splits are known: no host sync.
TEST(MoeCapacity, TokenDroppingComputesThePaddedCapacityWithoutAHostSync) {
  Qwen3MoeLayer l;
  l.t.moe_load_imbalance = 1.5;
  l.t.moe_capacity_factor = 1.25;
  const auto ops = l.ops();
  EXPECT_EQ(testing::find_op(ops, "expert up+gate").gemm.m, 2560);  // 1.25 x 2,048
  EXPECT_EQ(testing::find_op(ops, "expert down").gemm.m, 2560);
  EXPECT_DOUBLE_EQ(testing::find_op(ops, "EP dispatch all-to-all").bytes.value(), 32768.0 * 2048 * 2 * 1.25);
  EXPECT_DOUBLE_EQ(testing::find_op(ops, "EP combine all-to-all").bytes.value(), 32768.0 * 2048 * 2 * 1.25);
  for (const Op& op : ops) EXPECT_FALSE(op.host_sync) << op.name;
}

}  // namespace
}  // namespace cs
