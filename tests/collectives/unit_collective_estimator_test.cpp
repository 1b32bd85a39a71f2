// The unit collective estimator: node-local collectives in closed form; collectives that cross nodes with all
// of their groups at once on the flow-level network, where they share links.
#include "sim/collectives/unit_collective_estimator.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

namespace cs {
namespace {

// Expert groups of 8 GPUs, one GPU on each of 8 nodes (local index j of nodes 8k..8k+7): an EP all-to-all that
// crosses nodes. `groups` of them run at once (DP replicas of the expert layout).
std::vector<std::vector<int>> cross_node_groups(int groups) {
  std::vector<std::vector<int>> out;
  for (int g = 0; g < groups; ++g) {
    const int block = g / 8, local = g % 8;
    std::vector<int> members;
    for (int n = 0; n < 8; ++n) members.push_back((block * 8 + n) * 8 + local);
    out.push_back(members);
  }
  return out;
}

TEST(UnitCollectiveEstimator, NodeLocalGroupsUseTheClosedForm) {
  const Topology t = load_topology("dgx-h100", 16);
  NetworkOptions flow;
  UnitCollectiveEstimator estimator(t, flow);
  EventEngine engine;
  const auto analytic = make_collective_estimator(engine, t, flow);
  const CollectiveRequest req{CollectiveKind::all_to_all, Bytes{64e6}, {{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}},
                              "EP dispatch"};
  EXPECT_EQ(estimator.duration(req), analytic->duration(req));
  EXPECT_EQ(estimator.contended_requests(), 0u);
}

// On a fat tree whose leaves are 2:1 oversubscribed, one cross-node expert group alone gets the leaves' full
// uplinks; all 64 groups of a 512-GPU stage at once share them and take longer. The closed form cannot see the
// difference; the analytic backend keeps it (the user chose no contention).
TEST(UnitCollectiveEstimator, CrossNodeGroupsShareTheFabric) {
  const Topology t = load_topology("dgx-h100-fat-tree-2to1", 512);
  NetworkOptions flow;
  UnitCollectiveEstimator estimator(t, flow);
  const CollectiveRequest one{CollectiveKind::all_to_all, Bytes{64e6}, cross_node_groups(1), "EP dispatch"};
  const CollectiveRequest all{CollectiveKind::all_to_all, Bytes{64e6}, cross_node_groups(64), "EP dispatch"};
  const Time alone = estimator.duration(one), together = estimator.duration(all);
  std::printf("64 MB all-to-all, 8 nodes per group: one group %.3f ms, 64 groups at once %.3f ms\n",
              alone.seconds() * 1e3, together.seconds() * 1e3);
  EXPECT_EQ(estimator.contended_requests(), 2u);
  EXPECT_GT(together.seconds(), 1.2 * alone.seconds());
  EXPECT_EQ(estimator.duration(all), together);  // memoised: simulated once
  EXPECT_EQ(estimator.contended_requests(), 2u);

  NetworkOptions analytic;
  analytic.backend = NetworkBackend::analytic;
  UnitCollectiveEstimator closed(t, analytic);
  EXPECT_EQ(closed.duration(all), closed.duration(one));
  EXPECT_EQ(closed.contended_requests(), 0u);
}

}  // namespace
}  // namespace cs
