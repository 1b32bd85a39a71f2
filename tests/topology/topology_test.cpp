#include "sim/topology/topology.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "sim/topology/router.hpp"

#include "sim/core/error.hpp"

namespace cs {
namespace {

const SwitchTierCount* tier(const FabricInventory& inv, const std::string& name) {
  for (const auto& s : inv.switches) {
    if (s.tier == name) return &s;
  }
  return nullptr;
}
const CableTierCount* cables(const FabricInventory& inv, const std::string& name) {
  for (const auto& c : inv.cables) {
    if (c.tier == name) return &c;
  }
  return nullptr;
}
int count(const FabricInventory& inv, const std::string& name) {
  const auto* t = tier(inv, name);
  return t ? t->count : 0;
}

// NVIDIA DGX SuperPOD H100 RA, Table 4 (tco_facts.md section 4): 4 SU = 32 leaf, 16 spine, 1,024 leaf-spine
// cables, two tiers. The RA lists 127 nodes + 4 UFM ports = 1,020 node-side cables because one node slot
// holds the UFM appliance; we build the 128 nodes the GPU count asks for, so 128 x 8 = 1,024.
TEST(SuperPod, FourScalableUnitsMatchTheReferenceArchitecture) {
  const Topology t = load_topology("dgx-h100", 1024);
  const FabricInventory& inv = t.inventory();
  EXPECT_EQ(inv.nodes, 128);
  EXPECT_EQ(inv.gpus, 1024);
  EXPECT_EQ(inv.nics, 1024);
  EXPECT_EQ(inv.scalable_units, 4);
  EXPECT_EQ(count(inv, "leaf"), 32);
  EXPECT_EQ(count(inv, "spine"), 16);
  EXPECT_EQ(count(inv, "core"), 0);
  EXPECT_EQ(cables(inv, "node-leaf")->cables, 1024);
  EXPECT_EQ(cables(inv, "leaf-spine")->cables, 1024);
  EXPECT_EQ(cables(inv, "spine-core"), nullptr);
  // Every leaf and spine uses all 64 ports: 32 leaves x 64 + 16 spines x 64.
  EXPECT_EQ(tier(inv, "leaf")->ports_used, 32 * 64);
  EXPECT_EQ(tier(inv, "spine")->ports_used, 16 * 64);
  // Transceivers: switches in twin-port cages: (32 x 64 + 16 x 64) / 2 = 1,536 (RA: 1,536 switch transceivers);
  // nodes: 128 x 4 twin-port OSFP = 512 (RA: 508 for 127 nodes).
  const int switch_xcvr = cables(inv, "node-leaf")->switch_transceivers + cables(inv, "leaf-spine")->switch_transceivers;
  EXPECT_EQ(switch_xcvr, 1536);
  EXPECT_EQ(cables(inv, "node-leaf")->node_transceivers, 512);
  EXPECT_TRUE(cables(inv, "leaf-spine")->optical);
}

// Smaller SuperPODs (RA Table 4): 1 SU 8 leaf / 4 spine / 256 leaf-spine; 2 SU 16 / 8 / 512; 3 SU 24 / 16 / 768.
TEST(SuperPod, OneTwoAndThreeUnits) {
  const int leaves[] = {8, 16, 24}, spines[] = {4, 8, 16}, ls[] = {256, 512, 768};
  for (int su = 1; su <= 3; ++su) {
    const Topology t = load_topology("dgx-h100", su * 256);
    EXPECT_EQ(count(t.inventory(), "leaf"), leaves[su - 1]) << su;
    EXPECT_EQ(count(t.inventory(), "spine"), spines[su - 1]) << su;
    EXPECT_EQ(cables(t.inventory(), "leaf-spine")->cables, ls[su - 1]) << su;
  }
}

// B200 RA pattern (tco_facts.md section 4): 64 SU (16,384 GPUs) = 512 leaf / 512 spine / 256 core, and the
// node-leaf, leaf-spine and spine-core cable counts each equal the GPU count.
TEST(SuperPod, SixteenThousandGpusNeedThreeTiers) {
  const Topology t = load_topology("dgx-h100", 16384);
  const FabricInventory& inv = t.inventory();
  EXPECT_EQ(count(inv, "leaf"), 512);
  EXPECT_EQ(count(inv, "spine"), 512);
  EXPECT_EQ(count(inv, "core"), 256);
  EXPECT_EQ(cables(inv, "node-leaf")->cables, 16384);
  EXPECT_EQ(cables(inv, "leaf-spine")->cables, 16384);
  EXPECT_EQ(cables(inv, "spine-core")->cables, 16384);
  EXPECT_EQ(tier(inv, "core")->ports_used, 256 * 64);
  // 16 SU: 128 leaf / 128 spine / 64 core (B200 RA).
  const Topology t16 = load_topology("dgx-h100", 4096);
  EXPECT_EQ(count(t16.inventory(), "spine"), 128);
  EXPECT_EQ(count(t16.inventory(), "core"), 64);
}

TEST(BuildStages, PcieBoxAndOneSwitch) {
  const Topology box = load_topology("pcie-4090", 8);
  EXPECT_EQ(box.nodes(), 1);
  EXPECT_EQ(box.inventory().total_switches(), 0);
  const Topology four = load_topology("dgx-h100-ib-switch", 32);
  EXPECT_EQ(four.nodes(), 4);
  EXPECT_EQ(count(four.inventory(), "leaf"), 1);
  EXPECT_EQ(cables(four.inventory(), "node-leaf")->cables, 32);
  EXPECT_FALSE(cables(four.inventory(), "node-leaf")->optical);
  EXPECT_EQ(four.inventory().total_transceivers(), 0);  // copper DACs
}

TEST(Routes, NvlinkInsideANodeAndRailsAcrossNodes) {
  const Topology t = load_topology("dgx-h100", 1024);
  Router router(t);
  // GPU 0 -> GPU 5 on one node: up to the NVSwitch and down.
  const RouteView r = router.route(0, 5);
  ASSERT_EQ(r.channels.size(), 2U);
  EXPECT_EQ(t.channel_edge(r.channels[0]).tier, LinkTier::nvlink);
  // GPU 0 of node 0 -> GPU 0 of node 1 (same rail, same SU): GPU-PCIe switch-NIC, NIC-leaf-NIC, NIC-switch-GPU.
  const RouteView same_rail = router.route(0, 8);
  int fabric_hops = 0;
  for (ChannelId c : same_rail.channels) {
    const LinkTier tier_ = t.channel_edge(c).tier;
    fabric_hops += tier_ == LinkTier::node_leaf || tier_ == LinkTier::leaf_spine;
  }
  EXPECT_EQ(fabric_hops, 2);
  // Node 0 -> node 40 (another SU): leaf, spine, leaf = 4 fabric links.
  const RouteView far = router.route(0, 40 * 8);
  fabric_hops = 0;
  for (ChannelId c : far.channels) {
    const LinkTier tier_ = t.channel_edge(c).tier;
    fabric_hops += tier_ == LinkTier::node_leaf || tier_ == LinkTier::leaf_spine;
  }
  EXPECT_EQ(fabric_hops, 4);
  // Latency: NIC (0.6 us) x2, QM9700 (0.5 us) x3, plus links: more than 2.7 us.
  EXPECT_GT(far.latency, Time::us(2.7));
}

TEST(Routes, EcmpIsDeterministicAndSpreads) {
  const Topology t = load_topology("dgx-h100", 1024);
  Router router(t);
  std::set<ChannelId> spine_links;
  for (int n = 32; n < 128; ++n) {
    const RouteView r = router.route(0, n * 8);
    for (ChannelId c : r.channels) {
      if (t.channel_edge(c).tier == LinkTier::leaf_spine) spine_links.insert(c);
    }
  }
  // 96 destinations in other SUs leave leaf (SU0, rail0) on many of its 16 spine bundles, not one.
  EXPECT_GT(spine_links.size(), 20U);
  const auto a = router.route(3, 700);
  const std::vector<ChannelId> first(a.channels.begin(), a.channels.end());
  const Topology again = load_topology("dgx-h100", 1024);
  Router again_router(again);
  const auto b = again_router.route(3, 700);
  EXPECT_EQ(first, std::vector<ChannelId>(b.channels.begin(), b.channels.end()));
}

TEST(Routes, RailOnlyForwardsAcrossRailsOverNvlink) {
  const Topology t = load_topology("dgx-h100-rail-only", 256);  // one SU: one switch per rail, nothing above
  Router router(t);
  EXPECT_EQ(count(t.inventory(), "spine"), 0);
  // GPU 0 (rail 0) of node 0 -> GPU 3 (rail 3) of node 1: NVLink to local GPU 3 first (PXN), then rail 3.
  const RouteView r = router.route(0, 8 + 3);
  EXPECT_EQ(t.channel_edge(r.channels[0]).tier, LinkTier::nvlink);
  // Two SUs: each rail gets its own spine (8 in all), joining only that rail's two leaves.
  const Topology two = load_topology("dgx-h100-rail-only", 512);
  Router two_router(two);
  EXPECT_EQ(count(two.inventory(), "spine"), 8);
  EXPECT_NO_THROW((void)two_router.route(0, 40 * 8));
  EXPECT_EQ(two.channel_edge(two_router.route(1, 40 * 8 + 5).channels[0]).tier, LinkTier::nvlink);
}

TEST(Topology, TorusAndHypercubeBuild) {
  const Topology torus = load_topology("dgx-h100-torus", 16 * 8);
  EXPECT_EQ(count(torus.inventory(), "router"), 16);
  EXPECT_EQ(cables(torus.inventory(), "direct")->cables, 32);  // 4x4 torus: 2 links per node
  const Topology cube = load_topology("dgx-h100-hypercube", 8 * 8);
  Router cube_router(cube);
  EXPECT_EQ(cables(cube.inventory(), "direct")->cables, 12);   // 3-cube: 8 x 3 / 2 edges
  EXPECT_NO_THROW((void)cube_router.route(0, 7 * 8));
}

TEST(Topology, RejectsImpossibleGpuCounts) {
  EXPECT_THROW((void)load_topology("dgx-h100", 12), InputError);
  EXPECT_THROW((void)load_topology("dgx-h100-ib-switch", 72), InputError);  // 72 NIC ports > 64
  EXPECT_THROW((void)load_topology("no-such-topology", 8), InputError);
}

TEST(Topology, EveryShippedFileLoads) {
  const std::pair<const char*, int> files[] = {
      {"dgx-h100", 8},           {"dgx-h200", 2048},        {"dgx-a100", 640},   {"pcie-4090", 64},
      {"dgx-h100-ib-switch", 64}, {"hgx-h100-roce", 1024},  {"dgx-h100-rail-only", 1024},
      {"dgx-h100-fat-tree-2to1", 512}, {"dgx-h100-torus", 128}, {"dgx-h100-hypercube", 256},
      {"dgx-b200", 1024},        {"hgx-h800", 2048},        {"hgx-a800", 640},
      {"dgx-h100-3tier", 4096},  {"dgx-h100-rail-2to1", 1024}, {"gb200-nvl72", 2496},
      {"gb300-nvl72", 4608},     {"dgx-b300", 1024}};
  // The list is every file of topologies/: a new file must be added here to be loaded.
  std::size_t shipped = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(CS_SOURCE_DIR) + "/topologies")) {
    shipped += e.path().extension() == ".yaml" ? 1 : 0;
  }
  EXPECT_EQ(shipped, std::size(files));
  for (const auto& [name, gpus] : files) {
    const Topology t = load_topology(name, gpus);
    Router router(t);
    EXPECT_EQ(t.gpu_count(), gpus) << name;
    EXPECT_NO_THROW((void)router.route(0, gpus - 1)) << name;
    EXPECT_FALSE(t.report().empty());
  }
  // 2:1 fat-tree on 64-port switches: leaves of 42 NIC ports down, 21 up; 512 NIC ports fill 13 leaves.
  const Topology ft = load_topology("dgx-h100-fat-tree-2to1", 512);
  EXPECT_EQ(tier(ft.inventory(), "leaf")->count, (512 + 41) / 42);
}

// GB200 NVL72 (topologies/gb200-nvl72.yaml): 64 GPUs of a rack share one NVLink5 switch fabric, so two GPUs of
// different compute trays in one rack talk over NVLink (1.8 TB/s bidirectional, no NIC), and only GPUs of
// different racks over the NDR fabric, each through its own ConnectX-7 on its Grace CPU. 2,496 GPUs (NVIDIA's and
// CoreWeave's MLPerf Training v5.0 job) are 39 racks of 64.
TEST(Topology, GB200RackIsOneNvlinkDomainOf64Gpus) {
  const Topology t = load_topology("gb200-nvl72", 2496);
  EXPECT_EQ(t.nodes(), 39);
  EXPECT_EQ(t.node().gpus, 64);
  EXPECT_EQ(t.node().nic_spec.count, 64);
  Router router(t);
  auto slowest = [&](const RouteView& r) {
    double b = 1e30;
    for (ChannelId c : r.channels) b = std::min(b, t.channel_capacity(c).value());
    return b;
  };
  const RouteView in_rack = router.route(0, 63);  // first and last tray of one rack
  const std::size_t in_rack_hops = in_rack.channels.size();
  const double in_rack_bw = slowest(in_rack);
  const RouteView across = router.route(0, 64);  // the next rack
  EXPECT_EQ(in_rack_hops, 2u);                     // GPU - NVLink switch - GPU
  EXPECT_GT(across.channels.size(), in_rack_hops);
  EXPECT_GT(in_rack_bw, 10 * slowest(across));     // 18 x 40.1 GB/s against one 400G NIC
}

TEST(Topology, ErrorsNameTheFileLineAndKey) {
  const std::string path = std::string(CS_BINARY_DIR) + "/bad-topology.yaml";
  {
    std::ofstream out(path);
    out << "format_version: 2\nname: bad\nnode:\n  name: x\n  gpus: 8\n  pcie:\n    generation: g\n"
        << "    gpu_link: {bandwidth: 10GB/s, latency: 1us}\n  nics: {count: 1, link: {bandwidth: 100, latency: 1us}}\n"
        << "fabric: {kind: none}\n";
  }
  try {
    (void)load_topology(path, 8);
    FAIL() << "a bandwidth without unit was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad-topology.yaml:9:"), std::string::npos) << what;
    EXPECT_NE(what.find("node.nics.link.bandwidth"), std::string::npos) << what;
  }
}

TEST(Topology, ClassicAccessorsStillWork) {
  const Topology t = load_topology("dgx-h100", 16);
  EXPECT_EQ(t.gpu_count(), 16);
  EXPECT_EQ(t.node_of(9), 1);
  EXPECT_EQ(t.node().nics, 8);
  EXPECT_NEAR(t.node().gpu_link.bandwidth.value(), 450e9, 1);
  EXPECT_NEAR(t.node().nic.bandwidth.value(), 50e9, 1);
}

}  // namespace
}  // namespace cs
