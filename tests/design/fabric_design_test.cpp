// clustersim design end to end on a small job: every family is built, simulated and priced; the front holds
// exactly the non-dominated candidates; the best is the fastest within the limits; a budget below every
// candidate leaves none.
#include <gtest/gtest.h>

#include <set>

#include "sim/design/design_report.hpp"
#include "sim/design/fabric_design.hpp"

namespace cs {
namespace {

DesignReport design_small(DesignOptions o = {}) {
  o.threads = 1;
  return design_fabrics([] { return load_scenario("scenarios/gpt3-13b-32xh100-one-switch.yaml"); }, o);
}

bool no_worse_everywhere(const DesignCandidate& a, const DesignCandidate& b) {
  return a.time_to_train_s <= b.time_to_train_s && a.network_capex_usd <= b.network_capex_usd &&
         a.tco_usd_per_year <= b.tco_usd_per_year &&
         (a.time_to_train_s < b.time_to_train_s || a.network_capex_usd < b.network_capex_usd ||
          a.tco_usd_per_year < b.tco_usd_per_year);
}

TEST(FabricDesign, RefusesATopologyWithoutAFabric) {
  // The shipped scenario's topology is one switch, which design refuses (no fabric to size from).
  EXPECT_THROW((void)design_small(), InputError);
}

DesignReport design_superpod_32(DesignOptions o = {}) {
  o.threads = 1;
  return design_fabrics(
      [] {
        Scenario sc = load_scenario("scenarios/gpt3-13b-32xh100-one-switch.yaml");
        sc.topology = load_topology("dgx-h100", 32);
        return sc;
      },
      o);
}

TEST(FabricDesign, FrontBestAndVerdicts) {
  const DesignReport rep = design_superpod_32();
  std::set<std::string> families;
  for (const auto& c : rep.candidates) {
    families.insert(c.family);
    ASSERT_TRUE(c.error.empty()) << c.label << ": " << c.error;
    EXPECT_GT(c.step_time_s, 0);
    EXPECT_GT(c.network_capex_usd, 0) << c.label;
    EXPECT_GT(c.capex_usd, c.network_capex_usd);
    EXPECT_FALSE(c.network_bom.empty());
  }
  EXPECT_EQ(families, (std::set<std::string>{"fat-tree", "rail-optimized", "rail-only", "torus", "hypercube",
                                             "dragonfly", "ocs"}));
  // 4 nodes x 8 NICs = 32 ports fit one 64-port leaf at every oversubscription, so the six fat-trees are one build:
  // listed once (labelled by the tiers it got), the other five named in `merged`.
  int fat_trees = 0;
  for (const auto& c : rep.candidates) fat_trees += c.family == "fat-tree";
  EXPECT_EQ(fat_trees, 1);
  EXPECT_EQ(rep.merged.size(), 5U);
  for (const auto& c : rep.candidates) {
    if (c.family == "fat-tree") {
      EXPECT_EQ(c.label, "fat-tree 1-tier 1:1");
    }
  }
  // The front: exactly the candidates no other beats or equals in all three objectives.
  for (const auto& c : rep.candidates) {
    bool dominated = false;
    for (const auto& o : rep.candidates) dominated = dominated || no_worse_everywhere(o, c);
    EXPECT_EQ(c.pareto, !dominated) << c.label;
  }
  ASSERT_GE(rep.best, 0);
  const auto& best = rep.candidates[static_cast<std::size_t>(rep.best)];
  EXPECT_EQ(best.verdict, "best");
  EXPECT_TRUE(best.pareto);
  for (const auto& c : rep.candidates) {
    EXPECT_GE(c.time_to_train_s, best.time_to_train_s);
    if (&c != &best) {
      EXPECT_NE(c.verdict.find(c.pareto ? "on the front" : "dominated by"), std::string::npos) << c.verdict;
    }
  }
  const auto j = design_json(rep);
  for (const char* key : {"family", "tiers", "oversubscription", "network_capex_usd", "capex_usd", "network_power_w",
                          "step_time_s", "time_to_train_s", "tco_usd_per_year", "pareto"}) {
    EXPECT_TRUE(j["candidates"][0].contains(key)) << key;
  }
}

TEST(FabricDesign, LimitsDecideTheBest) {
  DesignOptions o;
  o.budget = Dollars{1.0};  // below any cluster: nothing fits
  const DesignReport none = design_superpod_32(o);
  EXPECT_EQ(none.best, -1);
  for (const auto& c : none.candidates) EXPECT_NE(c.verdict.find("over the"), std::string::npos) << c.verdict;
  // An IT power limit below every candidate's peak: none fits, each says by how much.
  DesignOptions p;
  p.power = Watts{1000.0};
  const DesignReport cold = design_superpod_32(p);
  EXPECT_EQ(cold.best, -1);
  for (const auto& c : cold.candidates) EXPECT_NE(c.verdict.find("IT peak"), std::string::npos) << c.verdict;
  // A budget just above the cheapest candidate's capex admits that candidate (and maybe others that cost as much).
  const DesignReport all = design_superpod_32();
  double cheapest = 1e300;
  for (const auto& c : all.candidates) cheapest = std::min(cheapest, c.capex_usd);
  o.budget = Dollars{cheapest};
  const DesignReport one = design_superpod_32(o);
  ASSERT_GE(one.best, 0);
  EXPECT_LE(one.candidates[static_cast<std::size_t>(one.best)].capex_usd, cheapest);
}

}  // namespace
}  // namespace cs
