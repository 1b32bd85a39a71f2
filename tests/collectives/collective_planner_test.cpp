// The collective planner alone: topology and group in, phases of flows out; no engine, no network.
#include "sim/collectives/collective_planner.hpp"

#include <gtest/gtest.h>

#include "rank_list.hpp"

#include <set>
#include <utility>
#include <vector>

#include "sim/topology/router.hpp"

namespace cs {
namespace {

using testing::iota;

struct Planned {
  FlowPlan plan;
  Planned(const Topology& t, CollectiveKind k, CollectiveAlgorithm a, const std::vector<int>& group, double bytes,
          bool pipelined = true) {
    Router router(t);
    CollectivePlanner planner(t, router);
    planner.begin_request();
    planner.plan_group(plan, k, a, group, shape_of(t, group), Bytes{bytes}, 0.9, pipelined);
  }
};

// A ring all-reduce on one 8-GPU node: one phase, one flow per ring edge (8, the last closing the ring), each
// carrying 2(n-1)/n * S = 1.75 S over a route inside the node (GPU -> NVSwitch -> GPU), with 2(n-1) = 14 steps
// of latency, and the calibration's bandwidth factor.
TEST(CollectivePlanner, RingAllReduceIsOneFlowPerRingEdge) {
  const Topology t = load_topology("dgx-h100", 8);
  const Planned p(t, CollectiveKind::all_reduce, CollectiveAlgorithm::ring, iota(8), 1e6);
  ASSERT_EQ(p.plan.phases.size(), 1u);
  ASSERT_EQ(p.plan.phases[0].size(), 8u);
  Router router(t);
  const Time hop = router.route(0, 1).latency;
  std::set<std::pair<ChannelId, ChannelId>> ends;
  for (const PlannedFlow& f : p.plan.phases[0]) {
    EXPECT_DOUBLE_EQ(f.bytes.value(), 1.75e6);
    EXPECT_DOUBLE_EQ(f.bandwidth_factor, 0.9);
    EXPECT_EQ(f.latency, hop * 14);
    const auto route = p.plan.route(f);
    ASSERT_EQ(route.size(), 2u);  // GPU -> NVSwitch, NVSwitch -> GPU
    ends.insert({route.front(), route.back()});
  }
  EXPECT_EQ(ends.size(), 8u);  // eight distinct edges
}

// All-to-all: every ordered pair of distinct ranks exchanges S/n, in one phase: n(n-1) = 56 flows of S/8.
TEST(CollectivePlanner, AllToAllIsEveryOrderedPair) {
  const Topology t = load_topology("dgx-h100", 8);
  const Planned p(t, CollectiveKind::all_to_all, CollectiveAlgorithm::tree, iota(8), 8e6);  // the algorithm is ignored
  ASSERT_EQ(p.plan.phases.size(), 1u);
  EXPECT_EQ(p.plan.phases[0].size(), 56u);
  for (const PlannedFlow& f : p.plan.phases[0]) EXPECT_DOUBLE_EQ(f.bytes.value(), 1e6);
}

// Rabenseifner on 8 ranks: log2(8) = 3 halving rounds (S/2, S/4, S/8 per rank) then 3 doubling rounds (S/8,
// S/4, S/2), each round a phase of 8 flows; 6 phases in all.
TEST(CollectivePlanner, HalvingDoublingHasOnePhasePerRound) {
  const Topology t = load_topology("dgx-h100", 8);
  const Planned p(t, CollectiveKind::all_reduce, CollectiveAlgorithm::halving_doubling, iota(8), 8e6);
  ASSERT_EQ(p.plan.phases.size(), 6u);
  const double expected[] = {4e6, 2e6, 1e6, 1e6, 2e6, 4e6};
  for (std::size_t r = 0; r < 6; ++r) {
    ASSERT_EQ(p.plan.phases[r].size(), 8u);
    for (const PlannedFlow& f : p.plan.phases[r]) EXPECT_DOUBLE_EQ(f.bytes.value(), expected[r]);
  }
}

// Hierarchical all-reduce on 4 nodes x 8 GPUs: intra-node reduce-scatter (32 flows), inter-node ring per local
// index (8 rails x 4 nodes = 32 flows), intra-node all-gather (32 flows). Pipelined: one phase of 96 flows;
// otherwise three phases of 32, the inter-node one carrying 2(N-1)/N * S/m = 1.5 S / 8.
TEST(CollectivePlanner, HierarchicalStagesOverlapOnlyWhenPipelined) {
  const Topology t = load_topology("dgx-h100", 32);
  const Planned piped(t, CollectiveKind::all_reduce, CollectiveAlgorithm::hierarchical, iota(32), 8e6, true);
  ASSERT_EQ(piped.plan.phases.size(), 1u);
  EXPECT_EQ(piped.plan.phases[0].size(), 96u);
  const Planned staged(t, CollectiveKind::all_reduce, CollectiveAlgorithm::hierarchical, iota(32), 8e6, false);
  ASSERT_EQ(staged.plan.phases.size(), 3u);
  for (const auto& phase : staged.plan.phases) EXPECT_EQ(phase.size(), 32u);
  for (const PlannedFlow& f : staged.plan.phases[1]) EXPECT_DOUBLE_EQ(f.bytes.value(), 1.5e6);
  EXPECT_EQ(staged.plan.flow_count(), 96u);
}

// A send/recv between two nodes is one flow over the fabric, whatever the algorithm.
TEST(CollectivePlanner, SendRecvIsOneFlow) {
  const Topology t = load_topology("dgx-h100", 16);
  const Planned p(t, CollectiveKind::send_recv, CollectiveAlgorithm::ring, {3, 11}, 5e6);
  ASSERT_EQ(p.plan.flow_count(), 1u);
  const PlannedFlow& f = p.plan.phases[0][0];
  EXPECT_DOUBLE_EQ(f.bytes.value(), 5e6);
  EXPECT_GT(p.plan.route(f).size(), 2u);  // leaves the node: NIC and switches
}

}  // namespace
}  // namespace cs
