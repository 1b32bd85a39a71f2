// Expert-parallel groups under MoE parallel folding (Megatron-Core's expert rank order: expert-TP fastest).
#include "sim/replay/rank_layout.hpp"

#include <gtest/gtest.h>

namespace cs {
namespace {

TEST(RankLayout, ExpertGroupsFollowTheAttentionTpWhenExpertTpEqualsTp) {
  // TP 2, DP 4, EP 2 (expert TP = TP = 2): stage-local index i = t + 2d; groups of the same t, 2 DP ranks apart
  // by one: {0,2}, {1,3}, {4,6}, {5,7}, as before folding existed.
  ParallelPlan p;
  p.tp = 2;
  p.dp = 4;
  p.ep = 2;
  const auto g = RankLayout(p).ep_groups(0);
  const std::vector<std::vector<int>> want{{0, 2}, {1, 3}, {4, 6}, {5, 7}};
  EXPECT_EQ(g, want);
}

TEST(RankLayout, FoldedExpertGroupsSpanTpRanks) {
  // Qwen3 235B-A22B style: TP 2, DP 4, PP 2, EP 8 with expert TP 1: the 8 ranks of a stage form one EP group,
  // TP ranks included (EP 8 > DP 4). Stage 1 starts at rank 8.
  ParallelPlan p;
  p.tp = 2;
  p.dp = 4;
  p.pp = 2;
  p.ep = 8;
  p.expert_tp = 1;
  const auto g0 = RankLayout(p).ep_groups(0);
  const auto g1 = RankLayout(p).ep_groups(1);
  ASSERT_EQ(g0.size(), 1u);
  EXPECT_EQ(g0[0], (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(g1[0], (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
}

}  // namespace
}  // namespace cs
