// Shipped scenarios can be priced: their topologies' node and switch models have price-book entries, so
// `clustersim tco` works on them. Two nodes have no published purchase price (research/tco_facts.md has none)
// and `tco` says so by name; a new topology file with a node or switch the book lacks fails here, not in a
// user's hands.

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "sim/facility/price_book.hpp"
#include "sim/scenario/facility_link.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs {
namespace {

TEST(ShippedHardware, EveryScenarioTopologyIsInThePriceBook) {
  const PriceBook book = PriceBook::load(std::string(CS_SOURCE_DIR) + "/data/pricebook.yaml");
  const std::set<std::string> unpriced_nodes = {"HGX H800", "8x RTX 4090 PCIe server"};
  std::set<std::string> topologies, unpriced;
  for (const auto& e : std::filesystem::directory_iterator(std::string(CS_SOURCE_DIR) + "/scenarios")) {
    if (e.path().extension() != ".yaml") continue;
    const Scenario sc = load_scenario(e.path().string());
    topologies.insert(sc.topology.name());
    const std::string node = sc.topology.inventory().node_model;
    if (unpriced_nodes.contains(node)) {
      unpriced.insert(node);
      EXPECT_THROW((void)make_inventory(sc, book), InputError) << e.path();  // named, never priced at zero
      continue;
    }
    ClusterInventory inv;
    ASSERT_NO_THROW(inv = make_inventory(sc, book)) << e.path();
    EXPECT_GT(book.at(PriceRef{inv.node.price}).price.amount, 0.0) << e.path();
  }
  EXPECT_EQ(unpriced, unpriced_nodes);
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

}  // namespace
}  // namespace cs
