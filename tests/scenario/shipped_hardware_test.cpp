// Shipped scenarios can be priced: their topologies' node and switch models have price-book entries, so
// `clustersim tco` works on them (the HGX H800 and the 8x RTX 4090 server as estimates, data/pricebook.yaml);
// a new topology file with a node or switch the book lacks fails here, not in a user's hands.

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "sim/facility/price_book.hpp"
#include "sim/scenario/facility_link.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology.hpp"

namespace cs {
namespace {

TEST(ShippedHardware, EveryScenarioTopologyIsInThePriceBook) {
  const PriceBook book = PriceBook::load(std::string(CS_SOURCE_DIR) + "/data/pricebook.yaml");
  std::set<std::string> topologies;
  for (const auto& e : std::filesystem::directory_iterator(std::string(CS_SOURCE_DIR) + "/scenarios")) {
    if (e.path().extension() != ".yaml") continue;
    const Scenario sc = load_scenario(e.path().string());
    topologies.insert(sc.topology.name());
    ClusterInventory inv;
    ASSERT_NO_THROW(inv = make_inventory(sc, book)) << e.path();
    EXPECT_GT(book.at(PriceRef{inv.node.price}).price.amount, 0.0) << e.path();
  }
  // Blackwell Ultra is among them: GB300 NVL72 racks on Quantum-X800 switches.
  EXPECT_TRUE(topologies.contains("DGX GB300 NVL72 SuperPOD (64 GPUs per NVLink domain, XDR 800G, rail-optimized)"));
}

TEST(ShippedHardware, BlackwellUltraNodesAndSwitchesArePricedWithTheirSources) {
  const PriceBook book = PriceBook::load(std::string(CS_SOURCE_DIR) + "/data/pricebook.yaml");
  for (const char* model : {"DGX GB300 NVL72", "DGX B300", "Q3400"}) {
    const PriceItem* item = book.find_model(model);
    ASSERT_NE(item, nullptr) << model;
    EXPECT_FALSE(item->source.empty()) << model;
    EXPECT_FALSE(item->quality.empty()) << model;
  }
  EXPECT_DOUBLE_EQ(book.find_model("DGX GB300 NVL72")->price.amount, 3.5e6);  // research/tco_facts.md
  EXPECT_DOUBLE_EQ(book.power(PriceRef{"dgx-b300"}, true).value(), 14500.0);   // DGX B300 user guide
}

// Each shipped node's host on Transformer Engine issue #2053's yardstick (one torch.nn.Linear forward): the
// Xeon hosts of DGX H100 (and, as estimates, of DGX B200 and B300) 13.48 us, the Grace hosts of GB200 and GB300
// NVL72 racks 37.08 us; a node whose host is not published (DGX H200, the calibration rig's scenarios; A100,
// A800, H800, RTX 4090 servers) is priced as this project's calibration hosts.
TEST(ShippedHardware, NodesCarryTheirHostsSpeed) {
  const auto host = [](const char* topology, int gpus) { return load_topology(topology, gpus).node().host_linear_forward; };
  for (const char* t : {"dgx-h100", "dgx-h100-3tier", "dgx-h100-rail-only", "dgx-b200", "dgx-b300"}) {
    EXPECT_EQ(host(t, 16), Time::ns(13'480)) << t;
  }
  EXPECT_EQ(host("gb200-nvl72", 64), Time::ns(37'080));
  EXPECT_EQ(host("gb300-nvl72", 64), Time::ns(37'080));
  for (const char* t : {"dgx-h200", "dgx-a100", "hgx-h800", "hgx-a800"}) EXPECT_EQ(host(t, 16), Time::zero()) << t;
}

}  // namespace
}  // namespace cs
