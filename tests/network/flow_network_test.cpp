#include "sim/network/flow_network.hpp"

#include <gtest/gtest.h>

#include "sim/network/link_statistics.hpp"
#include "sim/topology/router.hpp"

namespace cs {
namespace {

/// Nodes of `gpus` GPUs straight on one root complex (no PCIe switch, no NVLink), one NIC on the CPU.
NodeSpec plain_node(int gpus, Bandwidth pcie, Bandwidth nic) {
  NodeSpec n;
  n.name = "test node";
  n.gpus = gpus;
  n.pcie.generation = "test";
  n.pcie.gpu_link = LinkSpec{pcie, Time::us(1)};
  n.pcie.switches = 0;
  n.pcie.root_complexes = 1;
  n.nic_spec.count = 1;
  n.nic_spec.link = LinkSpec{nic, Time::zero()};
  n.nic_spec.host_link = LinkSpec{Bandwidth{1e15}, Time::zero()};
  n.nic_spec.attach = PcieAttach::cpu;
  n.nics = 1;
  n.nic = n.nic_spec.link;
  return n;
}

TEST(FlowNetwork, TwoFlowsOnOneLinkGetHalfEach) {
  // Two GPUs on one root complex, PCIe links of B = 10 GB/s and 1 us each way. Both flows go GPU0 -> RC ->
  // GPU1 (latency 2 us) and share both channels: each gets B/2 = 5 GB/s.
  const Topology t = build_topology("pair", plain_node(2, Bandwidth{10e9}, Bandwidth{1e9}), FabricSpec{}, 1);
  Router router(t);
  EventEngine engine;
  FlowNetwork net(engine, t);
  const RouteView r = router.route(0, 1);
  ASSERT_EQ(r.channels.size(), 2U);
  ASSERT_EQ(r.latency, Time::us(2));
  Time end_a, end_b;
  struct Recorder final : FlowObserver {
    std::vector<FlowEvent> seen;
    void on_flow_end(const FlowEvent& e) override { seen.push_back({e.started, e.at, e.bytes, {}}); }
  } recorder;
  net.add_observer(recorder);
  const LinkStatistics stats(net);
  net.start(r.channels, Bytes{0.5e9}, r.latency, [&] { end_a = engine.now(); });
  net.start(r.channels, Bytes{1e9}, r.latency, [&] { end_b = engine.now(); });
  engine.run(Time::us(3));
  const auto rates = net.rates_on(r.channels[0]);
  ASSERT_EQ(rates.size(), 2U);
  EXPECT_DOUBLE_EQ(rates[0].value(), 5e9);
  EXPECT_DOUBLE_EQ(rates[1].value(), 5e9);
  engine.run();
  // A: 0.5 GB at 5 GB/s = 100 ms after its 2 us latency.
  EXPECT_EQ(end_a, Time::us(2) + Time::ms(100));
  // B: 0.5 GB by then at 5 GB/s, the other 0.5 GB alone at 10 GB/s = 50 ms: 150 ms + 2 us.
  EXPECT_EQ(end_b, Time::us(2) + Time::ms(150));
  const auto& seen = recorder.seen;
  ASSERT_EQ(seen.size(), 2U);
  EXPECT_EQ(seen[0].at, end_a);
  EXPECT_DOUBLE_EQ(seen[1].bytes.value(), 1e9);
  EXPECT_EQ(stats.channel(r.channels[0]).peak_flows, 2);
  EXPECT_DOUBLE_EQ(stats.channel(r.channels[0]).bytes.value(), 1.5e9);
  EXPECT_EQ(stats.busy_time(r.channels[0], engine.now()), Time::ms(150));
}

TEST(FlowNetwork, MaxMinGivesTheSlackToTheUnconstrainedFlow) {
  // Classic max-min example (Bertsekas & Gallager 6.5): link 1 of capacity C1 carries flows a and b, link 2 of
  // capacity C2 > C1 carries b and c. Fair shares: a = b = C1/2 (link 1 is the bottleneck), c = C2 - C1/2.
  const Topology t = load_topology("pcie-4090", 8);
  Router router(t);
  EventEngine engine;
  FlowNetwork net(engine, t);
  const ChannelId link1 = router.route(0, 1).channels[0];  // GPU 0 -> its PCIe switch
  const ChannelId link2 = t.channel_between(t.root_complex_vertex(0, 0), t.root_complex_vertex(0, 1));
  const double c1 = t.channel_capacity(link1).value(), c2 = t.channel_capacity(link2).value();
  ASSERT_LT(c1, c2);
  const ChannelId a[] = {link1}, b[] = {link1, link2}, c[] = {link2};
  net.start(a, Bytes{1e12}, Time::zero(), [] {});
  net.start(b, Bytes{1e12}, Time::zero(), [] {});
  net.start(c, Bytes{1e12}, Time::zero(), [] {});
  engine.run(Time::us(1));
  const auto r1 = net.rates_on(link1), r2 = net.rates_on(link2);
  EXPECT_DOUBLE_EQ(r1[0].value(), c1 / 2);
  EXPECT_DOUBLE_EQ(r1[1].value(), c1 / 2);
  EXPECT_DOUBLE_EQ(std::max(r2[0].value(), r2[1].value()), c2 - c1 / 2);
}

TEST(FlowNetwork, SharedPcieUplinkSlowsTheGpuBehindIt) {
  // pcie-4090: GPUs 0,1 and NVMe 0 sit behind PCIe switch 0, whose one Gen4 x16 uplink (31.5 GB/s x 0.9) goes
  // to root complex 0; GPU 2 sits behind switch 1. GPU0 -> GPU2 alone is limited by one x16 link: U.
  // With NVMe 0 reading into host memory at the same time, switch 0's uplink is shared: the NVMe link
  // (7.88 GB/s x 0.9 = 7.09 GB/s) caps the drive, and the GPU gets U - 7.09 GB/s.
  const Topology t = load_topology("pcie-4090", 8);
  Router router(t);
  const RouteView gpu = router.route(0, 2);
  const std::vector<ChannelId> gpu_route(gpu.channels.begin(), gpu.channels.end());
  const double u = 31.5e9 * 0.9, drive = 7.88e9 * 0.9;
  {
    EventEngine engine;
    FlowNetwork net(engine, t);
    net.start(gpu_route, Bytes{1e12}, Time::zero(), [] {});
    engine.run(Time::us(1));
    EXPECT_DOUBLE_EQ(net.rates_on(gpu_route[0])[0].value(), u);
  }
  EventEngine engine;
  FlowNetwork net(engine, t);
  net.start(gpu_route, Bytes{1e12}, Time::zero(), [] {});
  const RouteView nvme = router.route_vertices(t.device_vertex(0, 0), t.root_complex_vertex(0, 0));
  net.start(nvme.channels, Bytes{1e12}, Time::zero(), [] {});
  // And the NIC, also on switch 0, sending from host memory to the wire does not touch that direction.
  engine.run(Time::us(1));
  EXPECT_NEAR(net.rates_on(gpu_route[0])[0].value(), u - drive, 1.0);
  EXPECT_LT(net.rates_on(gpu_route[0])[0].value(), u);
}

TEST(FlowNetwork, ANicOnAGpuSwitchTakesBandwidthFromThatGpu) {
  // Two pcie-4090 boxes. The NIC sits on PCIe switch 0 with GPUs 0 and 1. Flow A: GPU 2 -> GPU 0 comes down
  // switch 0's uplink (root complex -> switch 0), capacity U = 31.5 GB/s x 0.9. Flow B: GPU 3 -> GPU 8 on the
  // other box leaves through that NIC, so it comes down the same uplink. Alone, A gets U; together both get U/2
  // (B's own limit, the 200 Gb/s port at 24.2 GB/s, is above U/2).
  const Topology t = load_topology("pcie-4090", 16);
  Router router(t);
  const double u = 31.5e9 * 0.9;
  const RouteView a = router.route(2, 0);
  const std::vector<ChannelId> ra(a.channels.begin(), a.channels.end());
  const RouteView b = router.route(3, 8);
  const std::vector<ChannelId> rb(b.channels.begin(), b.channels.end());
  EventEngine engine;
  FlowNetwork net(engine, t);
  net.start(ra, Bytes{1e12}, Time::zero(), [] {});
  engine.run(Time::us(1));
  EXPECT_DOUBLE_EQ(net.rates_on(ra.back())[0].value(), u);
  net.start(rb, Bytes{1e12}, Time::zero(), [] {});
  engine.run(Time::us(2));
  EXPECT_DOUBLE_EQ(net.rates_on(ra.back())[0].value(), u / 2);
}

/// Nodes of one GPU and one NIC under a k-ary fat-tree whose leaves have `radix` ports, `oversub` down:up.
Topology small_fat_tree(int radix, double oversub) {
  FabricSpec f;
  f.kind = FabricKind::fat_tree;
  f.technology = "test";
  f.link = LinkSpec{Bandwidth{10e9}, Time::zero()};
  f.leaf = f.spine = f.core = SwitchSpec{"test", radix, Time::zero()};
  f.oversubscription = {oversub, 1.0};
  return build_topology("fat-tree", plain_node(1, Bandwidth{1e15}, Bandwidth{10e9}), f, 8);
}

Time cross_leaf_all_to_all(const Topology& t, Bytes each) {
  Router router(t);
  EventEngine engine;
  FlowNetwork net(engine, t);
  Time last;
  for (int s = 0; s < 8; ++s) {
    for (int d = 0; d < 8; ++d) {
      if (s / 4 == d / 4) continue;  // hosts 0-3 on leaf 0, 4-7 on leaf 1: only cross-tier pairs
      const RouteView r = router.route(s, d);
      net.start(r.channels, each, Time::zero(), [&] { last = engine.now(); });
    }
  }
  engine.run();
  return last;
}

TEST(FlowNetwork, TwoToOneOversubscriptionHalvesCrossTierThroughput) {
  // 8 hosts, NICs of B = 10 GB/s, 4 hosts per leaf. Non-blocking (radix 8: 4 down, 4 up): each host sends 4
  // cross-leaf flows and its NIC is the bottleneck, B/4 each, so S bytes each take 4S/B. 2:1 (radix 6: 4 down,
  // 2 up): 16 flows share the leaf's 2B of uplinks, B/8 each: 8S/B, half the cross-tier throughput.
  const Topology full = small_fat_tree(8, 1.0), half = small_fat_tree(6, 2.0);
  const Bytes s{1e9};
  EXPECT_EQ(cross_leaf_all_to_all(full, s), Time::ms(400));
  EXPECT_EQ(cross_leaf_all_to_all(half, s), Time::ms(800));
}

TEST(FlowNetwork, IncrementalSolveTouchesOnlyTheChangedComponent) {
  // Two disjoint pairs of flows: starting the second pair must not re-solve (or disturb) the first.
  const Topology t = load_topology("pcie-4090", 8);
  Router router(t);
  EventEngine engine;
  FlowNetwork net(engine, t);
  const RouteView a = router.route(0, 1);
  const std::vector<ChannelId> ra(a.channels.begin(), a.channels.end());
  net.start(ra, Bytes{1e9}, Time::zero(), [] {});
  engine.run(Time::us(1));
  const RouteView b = router.route(6, 7);
  net.start(b.channels, Bytes{1e9}, Time::zero(), [] {});
  engine.run(Time::us(2));
  EXPECT_EQ(net.largest_component(), 1U);
  EXPECT_EQ(net.flows_started(), 2U);
}

}  // namespace
}  // namespace cs
