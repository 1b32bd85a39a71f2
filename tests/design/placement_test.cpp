// Placement (parallelism.placement: optimise) on a hand-worked case: four nodes, two per leaf on a 4:1
// oversubscribed fat-tree, TP8 inside each node, PP2 and DP2 across them. Megatron's order makes nodes (0, 1)
// and (2, 3) DP partners and (0, 2), (1, 3) pipeline neighbours; the scheduler handed the job the positions
// [0, 2, 1, 3], so the heavy DP rings cross the oversubscribed uplinks. The optimiser must put each DP pair
// back on one leaf.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "sim/design/placement_optimiser.hpp"
#include "sim/scenario/runner.hpp"

namespace cs {
namespace {

Scenario scrambled_job() { return load_scenario("tests/design/data/gpt3-13b-tp8-pp2-dp2.yaml"); }

TEST(Placement, TrafficOfTheHandWorkedJob) {
  const Scenario sc = scrambled_job();
  const NodeTraffic t = node_traffic(sc.model, sc.plan, sc.training, 8, 4);
  // DP partners (0, 1), (2, 3): a 2-rank ring sends 2 x (2 - 1) / 2 = 1 gradient shard each way, 8 TP ranks per
  // node, fp32 grads: 8 x 2 x (13.1e9 / 16 x 4 B) ~ 52 GB between the nodes. Pipeline neighbours (0, 2), (1, 3)
  // exchange 32 micro-batches x 2048 x 5120 x 2 B / 8 (sequence parallel) x 2 directions x 8 ranks ~ 1.3 GB.
  EXPECT_GT(t.at(0, 1), 20.0 * t.at(0, 2));
  EXPECT_DOUBLE_EQ(t.at(0, 1), t.at(2, 3));
  EXPECT_DOUBLE_EQ(t.at(0, 2), t.at(1, 3));
  EXPECT_EQ(t.at(0, 3), 0.0);
  EXPECT_EQ(t.at(1, 2), 0.0);
}

TEST(Placement, SeatsOnOneLeafAreZeroHopsApart) {
  const Scenario sc = scrambled_job();
  const std::vector<double> d = seat_distances(sc.topology);
  // Node 0 sits at position 0 and node 2 at position 1: both on leaf 0; nodes 1 and 3 on leaf 1.
  EXPECT_EQ(d[0 * 4 + 2], 0.0);
  EXPECT_EQ(d[1 * 4 + 3], 0.0);
  EXPECT_EQ(d[0 * 4 + 1], 2.0);  // leaf -> spine -> leaf
}

TEST(Placement, BothMethodsUndoTheScrambledOrder) {
  const Scenario sc = scrambled_job();
  const NodeTraffic t = node_traffic(sc.model, sc.plan, sc.training, 8, 4);
  const std::vector<double> d = seat_distances(sc.topology);
  const std::vector<int> identity{0, 1, 2, 3};
  // Megatron's order: the two DP pairs cross (2 hops each), the PP pairs do not: cost = 2 x 2 x dp_bytes.
  EXPECT_DOUBLE_EQ(placement_cost(t, d, identity), 2.0 * 2.0 * t.at(0, 1));
  // The optimum: DP pairs on one leaf, the PP pairs cross: 2 x 2 x pp_bytes.
  for (const PlacementSolution& s : {greedy_local_search(t, d), simulated_annealing(t, d, 1)}) {
    EXPECT_DOUBLE_EQ(s.cost, 2.0 * 2.0 * t.at(0, 2));
    EXPECT_EQ(d[static_cast<std::size_t>(s.order[0] * 4 + s.order[1])], 0.0);
    EXPECT_EQ(d[static_cast<std::size_t>(s.order[2] * 4 + s.order[3])], 0.0);
  }
}

TEST(Placement, TheFullSimulationConfirmsTheGainAndKeepsIt) {
  const Scenario sc = scrambled_job();
  const RunResult megatron = run_scenario(sc);
  const RunResult r = run_with_placement(sc, megatron);
  ASSERT_TRUE(r.placement.has_value());
  EXPECT_EQ(r.placement->method, "greedy + local search");
  EXPECT_TRUE(r.placement->kept);
  EXPECT_EQ(r.placement->step_time_default, megatron.step.step_time);
  EXPECT_LT(r.placement->step_time, r.placement->step_time_default);
  EXPECT_EQ(r.step.step_time, r.placement->step_time);
  // The DP partners now share a leaf: positions {0, 1} or {2, 3} for nodes 0 and 1.
  const auto& slots = r.placement->node_slots;
  ASSERT_EQ(slots.size(), 4U);
  EXPECT_EQ(slots[0] / 2, slots[1] / 2);
  EXPECT_EQ(slots[2] / 2, slots[3] / 2);
}

TEST(Placement, IrregularNodeSetKeepsItsPositionsAndPairsWhatItCan) {
  // A scheduler's fragment: the job's four nodes at positions [0, 2, 1, 6] of a 7-position fabric (leaves hold
  // positions {0, 1}, {2, 3}, {4, 5}, {6}): leaf 0 has two of the job's seats, leaves 1 and 3 one each. Megatron's
  // order crosses both DP pairs; the best this set allows is one DP pair on leaf 0 and the other crossing.
  Scenario sc = scrambled_job();
  FabricSpec f = sc.topology.fabric();
  f.node_slots = {0, 2, 1, 6};
  sc.topology = build_topology("fragment", sc.topology.node(), f, 4);
  const RunResult r = run_with_placement(sc, run_scenario(sc));
  ASSERT_TRUE(r.placement.has_value());
  const NodeTraffic t = node_traffic(sc.model, sc.plan, sc.training, 8, 4);
  // Default: both DP pairs cross (2 hops), PP pair (0, 2) shares leaf 0, PP pair (1, 3) crosses.
  EXPECT_DOUBLE_EQ(r.placement->cost_default, 2.0 * 2.0 * t.at(0, 1) + 2.0 * t.at(1, 3));
  // Optimised: one DP pair on leaf 0; the other DP pair and both PP pairs cross.
  EXPECT_DOUBLE_EQ(r.placement->cost, 2.0 * t.at(0, 1) + 2.0 * 2.0 * t.at(0, 2));
  std::vector<int> used = r.placement->node_slots;
  std::sort(used.begin(), used.end());
  EXPECT_EQ(used, (std::vector<int>{0, 1, 2, 6}));  // the job keeps the positions it was given
  EXPECT_TRUE(r.placement->kept);
  EXPECT_LT(r.placement->step_time, r.placement->step_time_default);
}

TEST(Placement, NeverKeptWhenNotFaster) {
  // On one leaf (a non-blocking fat-tree of 4 nodes at radix 64) every seat is as good as any other: no lower
  // cost, so Megatron's order stays and the report says so.
  Scenario sc = scrambled_job();
  FabricSpec f = sc.topology.fabric();
  f.leaf.radix = 64;
  f.spine = f.core = f.leaf;
  f.oversubscription = {1.0, 1.0};
  f.node_slots.clear();
  sc.topology = build_topology("one leaf", sc.topology.node(), f, 4);
  const RunResult megatron = run_scenario(sc);
  const RunResult r = run_with_placement(sc, megatron);
  ASSERT_TRUE(r.placement.has_value());
  EXPECT_FALSE(r.placement->kept);
  EXPECT_EQ(r.step.step_time, megatron.step.step_time);
  EXPECT_EQ(r.placement->step_time, r.placement->step_time_default);
}

}  // namespace
}  // namespace cs
