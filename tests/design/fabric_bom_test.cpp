// Hand-checked part counts of small builds of every family clustersim design compares, and routing on the two
// new builders (dragonfly, OCS). Each expectation has its arithmetic beside it.
#include <gtest/gtest.h>

#include <map>

#include "sim/design/fabric_design.hpp"
#include "sim/facility/bill_of_materials.hpp"
#include "sim/topology/router.hpp"
#include "sim/topology/topology.hpp"

namespace cs {
namespace {

/// DGX H100 nodes (8 GPUs, 8 NICs, four twin-port OSFPs) from the shipped topology, on fabric `f`.
Topology build_dgx(int nodes, FabricSpec f) {
  const Topology base = load_topology("dgx-h100", 8);
  FabricSpec spec = base.fabric();
  f.technology = spec.technology;
  f.link = spec.link;
  if (f.leaf.model.empty()) f.leaf = spec.leaf;
  if (f.spine.model.empty()) f.spine = f.leaf;
  if (f.core.model.empty()) f.core = f.spine;
  return build_topology("test", base.node(), f, nodes);
}

FabricSpec fabric_of(FabricKind kind) {
  FabricSpec f;
  f.kind = kind;
  return f;
}

int switches_in(const FabricInventory& inv, const std::string& tier) {
  for (const auto& s : inv.switches) {
    if (s.tier == tier) return s.count;
  }
  return 0;
}
const CableTierCount& cable_tier(const FabricInventory& inv, const std::string& tier) {
  for (const auto& c : inv.cables) {
    if (c.tier == tier) return c;
  }
  static const CableTierCount none;
  return none;
}

TEST(DesignBom, FatTreeTwoTiersEightNodes) {
  // 8 nodes x 8 NICs = 64 ports; a 64-port leaf at 1:1 has 32 down, 32 up -> 2 leaves; spines: the smallest
  // divisor of 32 >= 2 x 32 / 64 = 1 -> 1 spine taking 32 cables from each leaf (64 ports).
  const Topology t = build_dgx(8, fabric_of(FabricKind::fat_tree));
  const FabricInventory& inv = t.inventory();
  EXPECT_EQ(switches_in(inv, "leaf"), 2);
  EXPECT_EQ(switches_in(inv, "spine"), 1);
  EXPECT_EQ(switches_in(inv, "core"), 0);
  EXPECT_EQ(cable_tier(inv, "node-leaf").cables, 64);
  EXPECT_EQ(cable_tier(inv, "leaf-spine").cables, 64);
  EXPECT_EQ(cable_tier(inv, "node-leaf").node_transceivers, 32);     // 8 nodes x 4 twin-port OSFPs
  EXPECT_EQ(cable_tier(inv, "node-leaf").switch_transceivers, 32);   // 64 leaf ports / 2
  EXPECT_EQ(cable_tier(inv, "leaf-spine").switch_transceivers, 64);  // 64 leaf + 64 spine ports / 2
}

TEST(DesignBom, FatTreeForcedThreeTiersEightNodes) {
  // tiers: 3: pods of half a spine's 32 down ports (16 leaves) -> one pod of both leaves; its spine group is the
  // smallest divisor of 32 >= 2 x 32 / 32 = 2 -> 2 spines, 16 cables from each leaf; 2 core planes, each the
  // smallest divisor of 32 >= 1 x 32 / 64 -> 1 core taking its spine's 32 up cables.
  FabricSpec f = fabric_of(FabricKind::fat_tree);
  f.tiers = 3;
  const FabricInventory inv = build_dgx(8, f).inventory();
  EXPECT_EQ(switches_in(inv, "leaf"), 2);
  EXPECT_EQ(switches_in(inv, "spine"), 2);
  EXPECT_EQ(switches_in(inv, "core"), 2);
  EXPECT_EQ(cable_tier(inv, "leaf-spine").cables, 64);
  EXPECT_EQ(cable_tier(inv, "spine-core").cables, 64);
}

TEST(DesignBom, RailFabricsThatFitOneLeafUseOneSwitch) {
  // 2 nodes x 8 NICs = 16 ports <= 64: one leaf serves all eight rails, no spine (a full 32-node unit would have
  // bought 8 leaves and 4 spines).
  for (FabricKind kind : {FabricKind::rail_optimized, FabricKind::rail_only}) {
    const FabricInventory inv = build_dgx(2, fabric_of(kind)).inventory();
    EXPECT_EQ(switches_in(inv, "leaf"), 1);
    EXPECT_EQ(switches_in(inv, "spine"), 0);
    EXPECT_EQ(cable_tier(inv, "node-leaf").cables, 16);
  }
}

TEST(DesignBom, RailOptimizedSmallerThanAUnitIsSizedToItsNodes) {
  // 12 nodes of a 32-node unit (96 ports): one leaf per rail (8) with 12 down and 12 up ports; spines: the
  // smallest divisor of 12 >= 8 x 12 / 64 = 2 -> 2 spines taking 6 cables from each leaf (48 ports each).
  // Sized as a full unit it would have had 32 up ports per leaf and 4 spines.
  const FabricInventory inv = build_dgx(12, fabric_of(FabricKind::rail_optimized)).inventory();
  EXPECT_EQ(switches_in(inv, "leaf"), 8);
  EXPECT_EQ(switches_in(inv, "spine"), 2);
  EXPECT_EQ(cable_tier(inv, "node-leaf").cables, 96);
  EXPECT_EQ(cable_tier(inv, "leaf-spine").cables, 96);
}

TEST(DesignBom, RailOnlyHasNoSpineWithinAUnit) {
  // Rail-only (Wang et al. 2023): the 8 rail leaves of 12 nodes are not joined: 96 cables, no spine.
  const FabricInventory inv = build_dgx(12, fabric_of(FabricKind::rail_only)).inventory();
  EXPECT_EQ(switches_in(inv, "leaf"), 8);
  EXPECT_EQ(switches_in(inv, "spine"), 0);
  EXPECT_EQ(cable_tier(inv, "node-leaf").cables, 96);
  EXPECT_EQ(cable_tier(inv, "leaf-spine").cables, 0);
}

TEST(DesignBom, TorusAndHypercubeOfFourNodes) {
  // 4 nodes -> 2 x 2 torus; a dimension of 2 has one link per pair: 2 links per dimension, 4 in all; one router
  // per node. A 4-node hypercube is the same 2 x 2 graph.
  for (FabricKind kind : {FabricKind::torus, FabricKind::hypercube}) {
    const FabricInventory inv = build_dgx(4, fabric_of(kind)).inventory();
    EXPECT_EQ(switches_in(inv, "router"), 4);
    EXPECT_EQ(cable_tier(inv, "direct").cables, 4);
    EXPECT_EQ(cable_tier(inv, "node-leaf").cables, 32);
  }
}

TEST(DesignBom, DragonflyOfTwoGroups) {
  // Radix 16: p = 4 NIC ports per router, a = 8 routers per group, h = 16 - 4 - 7 = 5 global ports each.
  // 8 nodes x 8 NICs = 64 ports -> 16 routers, 2 groups; local: 2 x (8 x 7 / 2) = 56 cables; global: 8 x 5 / 1 =
  // 40 cables between the two groups, 5 per router, so every router uses 4 + 7 + 5 = 16 ports.
  FabricSpec f = fabric_of(FabricKind::dragonfly);
  f.leaf = SwitchSpec{"QM9700", 16, Time::us(0.5)};
  const Topology t = build_dgx(8, f);
  const FabricInventory& inv = t.inventory();
  EXPECT_EQ(switches_in(inv, "router"), 16);
  EXPECT_EQ(cable_tier(inv, "leaf-spine").cables, 56);
  EXPECT_EQ(cable_tier(inv, "spine-core").cables, 40);
  for (const auto& s : inv.switches) EXPECT_EQ(s.ports_used, 16 * 16);
}

TEST(DesignRouting, DragonflyIsMinimalLocalGlobalLocal) {
  FabricSpec f = fabric_of(FabricKind::dragonfly);
  f.leaf = SwitchSpec{"QM9700", 16, Time::us(0.5)};
  const Topology t = build_dgx(8, f);
  Router router(t);
  // GPU 0 (node 0, router 0, group 0) to GPU 63 (node 7, router 15, group 1): at most one local hop, one global
  // hop, one local hop between routers; exactly one global (spine-core tier) link.
  int worst = 0;
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      worst = std::max(worst, router.fabric_distance(t.nic_vertex(0, a), t.nic_vertex(7, b)));
    }
  }
  EXPECT_LE(worst, 3);
  EXPECT_GE(worst, 1);
  const RouteView r = router.route(0, 63);
  int global = 0;
  for (ChannelId c : r.channels) global += t.channel_edge(c).tier == LinkTier::spine_core;
  EXPECT_EQ(global, 1);
}

TEST(DesignBom, OcsRingOfFourNodes) {
  // Stride 1 on all 4 NIC pairs: each pair holds circuits k -> k+1 and k -> k-1; 4 nodes x 4 pairs = 16 circuits,
  // 32 OCS ports -> one 136-port OCS; 32 fibres NIC -> OCS with the nodes' 16 OSFPs; no switch-side optics.
  FabricSpec f = fabric_of(FabricKind::ocs);
  f.ocs_shifts = {1};
  const FabricInventory inv = build_dgx(4, f).inventory();
  EXPECT_EQ(switches_in(inv, "ocs"), 1);
  EXPECT_EQ(switches_in(inv, "router"), 0);  // the nodes' forwarding points are not bought
  EXPECT_EQ(cable_tier(inv, "node-leaf").cables, 32);
  EXPECT_EQ(cable_tier(inv, "node-leaf").node_transceivers, 16);
  EXPECT_EQ(cable_tier(inv, "node-leaf").switch_transceivers, 0);
  EXPECT_EQ(cable_tier(inv, "direct").cables, 0);
  for (const auto& s : inv.switches) {
    if (s.tier == "ocs") {
      EXPECT_EQ(s.ports_used, 32);
    }
  }
}

TEST(DesignRouting, OcsRingTakesTwoCircuitsToTheFarNode) {
  // A 4-node ring: node 0 reaches node 1 over one circuit, node 2 over two (through node 1's or node 3's host).
  FabricSpec f = fabric_of(FabricKind::ocs);
  f.ocs_shifts = {1};
  const Topology t = build_dgx(4, f);
  Router router(t);
  const auto circuits = [&](int from, int to) {
    int n = 0;
    for (ChannelId c : router.route(from, to).channels) n += t.channel_edge(c).tier == LinkTier::direct;
    return n;
  };
  EXPECT_EQ(circuits(0, 8), 1);
  EXPECT_EQ(circuits(0, 16), 2);
  EXPECT_EQ(circuits(0, 24), 1);
  // Strides {1, 2}: node 2 is now one circuit away.
  f.ocs_shifts = {1, 2};
  const Topology t2 = build_dgx(4, f);
  Router router2(t2);
  int n = 0;
  for (ChannelId c : router2.route(0, 16).channels) n += t2.channel_edge(c).tier == LinkTier::direct;
  EXPECT_EQ(n, 1);
}

TEST(DesignBom, OcsIsPricedFromThePriceBook) {
  // One OCS unit at the price book's ocs-palomar-136 entry; fibres and the nodes' optics priced per line.
  FabricSpec f = fabric_of(FabricKind::ocs);
  f.ocs_shifts = {1};
  const Topology t = build_dgx(4, f);
  const PriceBook book = PriceBook::load_default();
  bool found = false;
  for (const auto& s : t.inventory().switches) {
    if (s.tier != "ocs") continue;
    const PriceItem& p = book.for_model(s.model, "OCS");
    EXPECT_EQ(p.id, "ocs-palomar-136");
    EXPECT_GT(p.price.amount, 0);
    EXPECT_FALSE(p.source.empty());
    found = true;
  }
  EXPECT_TRUE(found);
}

TEST(DesignCandidates, OcsCircuitsFollowTheTrafficMatrix) {
  // 4 nodes, 4 ports each; only (0, 1) and (2, 3) talk, 10 bytes each. The ring takes 2 ports per node: (0, 1),
  // (1, 2), (2, 3), (0, 3). Both talking pairs already have a circuit; by bytes per circuit they then alternate:
  // (0, 1) at 10/2, (2, 3) at 10/2, (0, 1) at 10/3, (2, 3) at 10/3 - and every port is used.
  NodeTraffic t{4, std::vector<double>(16, 0.0)};
  t.bytes[0 * 4 + 1] = t.bytes[1 * 4 + 0] = 10.0;
  t.bytes[2 * 4 + 3] = t.bytes[3 * 4 + 2] = 10.0;
  const auto circuits = choose_ocs_circuits(t, 4);
  std::map<std::pair<int, int>, int> count;
  for (const auto& c : circuits) ++count[c];
  EXPECT_EQ(count[std::make_pair(0, 1)], 3);
  EXPECT_EQ(count[std::make_pair(2, 3)], 3);
  EXPECT_EQ(count[std::make_pair(1, 2)], 1);
  EXPECT_EQ(count[std::make_pair(0, 3)], 1);
  EXPECT_EQ(circuits.size(), 8U);  // 4 nodes x 4 ports / 2 ends
}

TEST(DesignRouting, MatchedOcsCircuitsAreBundledLinks) {
  // DGX nodes (8 NICs): circuits (0, 1) x 3 and the ring; node 0 -> node 1 crosses one bundle of 3 circuits.
  FabricSpec f = fabric_of(FabricKind::ocs);
  f.ocs_circuits = {{0, 1}, {1, 2}, {2, 3}, {0, 3}, {0, 1}, {0, 1}};
  const Topology t = build_dgx(4, f);
  Router router(t);
  const RouteView r = router.route(0, 8);
  int direct = 0;
  for (ChannelId c : r.channels) {
    if (t.channel_edge(c).tier != LinkTier::direct) continue;
    ++direct;
    EXPECT_EQ(t.channel_edge(c).cables, 3);
  }
  EXPECT_EQ(direct, 1);
  // 6 circuits = 12 OCS ports, one unit.
  for (const auto& s : t.inventory().switches) {
    if (s.tier == "ocs") {
      EXPECT_EQ(s.ports_used, 12);
    }
  }
  // More circuits at a node than it has NICs is refused.
  f.ocs_circuits.assign(9, {0, 1});
  EXPECT_THROW((void)build_dgx(4, f), InputError);
}

TEST(DesignCandidates, OcsStridesStayConnected) {
  // Traffic only at strides 2 and 4 of 8 nodes: gcd(2, 4, 8) = 2 splits the circulant into two halves, so
  // stride 1 is added in the free NIC-pair slot.
  const std::vector<StrideTraffic> traffic{{2, 10.0}, {4, 5.0}};
  EXPECT_EQ(choose_ocs_strides(traffic, 4, 8), (std::vector<int>{2, 4, 1}));
  // With only two slots, stride 1 takes the last.
  EXPECT_EQ(choose_ocs_strides(traffic, 2, 8), (std::vector<int>{2, 1}));
  // Stride 3 alone is coprime with 8: kept as is.
  EXPECT_EQ(choose_ocs_strides({{3, 1.0}}, 4, 8), (std::vector<int>{3}));
}

}  // namespace
}  // namespace cs
