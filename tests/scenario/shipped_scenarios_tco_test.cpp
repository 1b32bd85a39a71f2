// Every shipped scenario gets its power and cost report (issue 47): each scenarios/*.yaml runs to a TCO report
// with a positive capex and a bill of materials whose GPU-node line is the price-book entry of the node its
// topology names, which is what `clustersim tco` prints. And every topology file's node and switches are in the
// price book, so a what-if on another topology can be priced too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/core/data_dir.hpp"
#include "sim/facility/price_book.hpp"
#include "sim/scenario/runner.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology.hpp"

namespace cs {
namespace {

/// The stems of the .yaml files in a shipped data folder ("scenarios", "topologies"), sorted.
std::vector<std::string> shipped_yaml_stems(const std::string& folder) {
  std::vector<std::string> stems;
  for (const auto& e : std::filesystem::directory_iterator(data_path(folder))) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") stems.push_back(e.path().stem().string());
  }
  std::sort(stems.begin(), stems.end());
  return stems;
}

class ShippedScenarioTco : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedScenarioTco, HasABillOfMaterialsThatNamesTheNodeAndATco) {
  const Scenario sc = load_scenario(data_path("scenarios/" + GetParam() + ".yaml"));
  // A training run is costed over its token budget; a service over its simulated window.
  ASSERT_TRUE(sc.serving || sc.training.token_budget.has_value()) << "costing a run needs training.token_budget";
  const RunResult r = run_scenario(sc);
  ASSERT_TRUE(r.tco.has_value()) << (r.warnings.empty() ? std::string("no warning") : r.warnings.back());
  const TcoReport& tco = *r.tco;
  EXPECT_GT(tco.hardware_capex.value(), 0.0);
  EXPECT_DOUBLE_EQ(tco.hardware_capex.value(), tco.bom.total().value());
  EXPECT_GT(tco.tco_per_year.value(), 0.0);
  EXPECT_GT(tco.run_cost.value(), 0.0);

  const PriceBook book = PriceBook::load_default();
  const std::string& node_model = sc.topology.inventory().node_model;
  const PriceItem* node = book.find_model(node_model);
  ASSERT_NE(node, nullptr) << node_model;
  const auto line = std::find_if(tco.bom.lines.begin(), tco.bom.lines.end(), [&](const BomLine& l) {
    return l.category == "compute" && l.price_id == node->id;
  });
  ASSERT_NE(line, tco.bom.lines.end()) << "no GPU-node line for " << node_model;
  EXPECT_DOUBLE_EQ(line->quantity, static_cast<double>(sc.topology.nodes()));
  EXPECT_DOUBLE_EQ(line->unit_price.value(), node->price.amount);
  EXPECT_NE(line->citation.find(node->source), std::string::npos);  // every printed price names its source
}

INSTANTIATE_TEST_SUITE_P(Scenarios, ShippedScenarioTco, ::testing::ValuesIn(shipped_yaml_stems("scenarios")),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string s = i.param;
                           for (char& c : s) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return s;
                         });

// The node and every switch model of each topology file (read as one node; the fabric's switch models are in
// its spec) have a price-book entry with the rack units that placing them needs. The torus and hypercube
// "node-router" is no part one buys: those fabrics route through the nodes' own NIC ports.
TEST(ShippedTopologyPrices, EveryNodeAndSwitchModelHasAnEntry) {
  const PriceBook book = PriceBook::load_default();
  const std::vector<std::string> topologies = shipped_yaml_stems("topologies");
  ASSERT_FALSE(topologies.empty());
  for (const std::string& name : topologies) {
    const Topology t = load_topology_for_job(name, 1);
    const PriceItem* node = book.find_model(t.node().name);
    ASSERT_NE(node, nullptr) << name << ": node " << t.node().name;
    EXPECT_GT(node->price.amount, 0.0) << name;
    EXPECT_TRUE(node->rack_units.has_value()) << name;
    EXPECT_TRUE(node->power_max.has_value()) << name;
    for (const SwitchSpec* s : {&t.fabric().leaf, &t.fabric().spine, &t.fabric().core}) {
      if (s->model.empty() || s->model == "node-router") continue;
      const PriceItem* sw = book.find_model(s->model);
      ASSERT_NE(sw, nullptr) << name << ": switch " << s->model;
      EXPECT_TRUE(sw->rack_units.has_value()) << name << ": " << s->model;
      EXPECT_TRUE(sw->power_typical.has_value() || sw->power_max.has_value()) << name << ": " << s->model;
    }
  }
}

}  // namespace
}  // namespace cs
