// The 4-SU DGX SuperPOD H100 (127 DGX, 1,016 GPUs) against NVIDIA's reference architecture and datasheets.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/facility/tco_model.hpp"
#include "sim/input/input_node.hpp"
#include "small_cluster.hpp"
#include "superpod_fixture.hpp"

namespace cs {
namespace {

PriceBook shipped_book() { return PriceBook::load(std::string(CS_SOURCE_DIR) + "/data/pricebook.yaml"); }

/// A compute-heavy step on H100 SXM (TDP 700 W, idle 70 W, profiles/h100-sxm.yaml).
RunProfile h100_run(double compute_fraction) {
  RunProfile run;
  run.step_time = Time::from_seconds(10.0);
  run.fractions = {.compute = compute_fraction, .memory = (1 - compute_fraction) / 2,
                   .communication = (1 - compute_fraction) / 2, .idle = 0.0};
  run.tokens_per_step = 4e6;
  run.token_budget = 1e12;
  run.parameter_count = 70e9;
  run.gpu.name = "NVIDIA H100 SXM5 80GB";
  run.gpu.tdp = Watts{700.0};
  run.gpu.idle_power = Watts{70.0};
  return run;
}

double count_of(const BillOfMaterials& bom, const std::string& item) {
  double n = 0;
  for (const BomLine& l : bom.lines) {
    if (l.item.find(item) != std::string::npos) n += l.quantity;
  }
  return n;
}

TEST(SuperPod, ComputeFabricCountsMatchTable4) {
  // RA-11333-001 Table 4: nodes, leaf, spine, node+UFM cables, spine-leaf cables per SU count.
  struct Row { int su, nodes, leaf, spine, node_cables, spine_cables; };
  const PriceBook book = shipped_book();
  for (const Row r : {Row{1, 31, 8, 4, 252, 256}, Row{2, 63, 16, 8, 508, 512}, Row{3, 95, 24, 16, 764, 768},
                      Row{4, 127, 32, 16, 1020, 1024}}) {
    const ClusterInventory inv = test::superpod_h100(r.su);
    const BillOfMaterials bom = build_bom(inv, RackPlan{}, 0, "rack-pdu-placeholder", book);
    EXPECT_EQ(count_of(bom, "GPU node: dgx-h100"), r.nodes) << r.su;
    EXPECT_EQ(count_of(bom, "compute leaf switch"), r.leaf) << r.su;
    EXPECT_EQ(count_of(bom, "compute spine switch"), r.spine) << r.su;
    EXPECT_EQ(count_of(bom, "compute node-leaf optical cable"), r.node_cables) << r.su;
    EXPECT_EQ(count_of(bom, "compute leaf-spine optical cable"), r.spine_cables) << r.su;
  }
  // Appendix (4 SU): 1,536 switch transceivers and 508 DGX transceivers on the compute fabric.
  const BillOfMaterials bom = build_bom(test::superpod_h100(4), RackPlan{}, 0, "rack-pdu-placeholder", book);
  EXPECT_EQ(count_of(bom, "switch-side transceiver"), 1536);
  EXPECT_EQ(count_of(bom, "node-side transceiver"), 508);
}

TEST(SuperPod, ItPowerAtFullLoadIsWithinTenPercentOfThePublishedFigure) {
  const PriceBook book = shipped_book();
  const PowerReport p = compute_power(FacilityConfig{}, test::superpod_h100(4), h100_run(1.0), book);
  // Published: 127 DGX x 10.2 kW = 1,295.4 kW plus 48 QM9700 x 1.72 kW max = 82.56 kW -> 1,377.96 kW.
  const double published = 127 * 10.2e3 + 48 * 1.72e3;
  // Modelled peak: 127 x 10.2 kW + 48 x 0.747 kW + 1,536 optics x 17 W + 4 UFM x 0.689 kW
  //              = 1,295.4 + 35.856 + 26.112 + 2.756 = 1,360.124 kW (-1.3%).
  EXPECT_NEAR(p.it_peak.value(), 1360124.0, 1.0);
  EXPECT_NEAR(p.it_peak.value() / published, 1.0, 0.10);
  // Against the brief's rounder 128 nodes: 128 x 10.2 + 82.56 = 1,388.16 kW; still within 10%.
  EXPECT_NEAR(p.it_peak.value() / (128 * 10.2e3 + 48 * 1.72e3), 1.0, 0.10);
  // Compute-bound all step: every GPU at 700 W and the node at its 10.2 kW maximum, so average = peak.
  EXPECT_NEAR(p.node_average.value(), 10200.0, 1e-6);
  EXPECT_NEAR(p.it_average.value(), p.it_peak.value(), 1e-6);
  // Air cooling, 40.8 kW racks: 4 DGX per rack -> 32 compute racks; 48 switches + 9 appliances = 57U -> 2 racks.
  EXPECT_EQ(p.racks.nodes_per_rack, 4);
  EXPECT_EQ(p.racks.compute_racks, 32);
  EXPECT_EQ(p.racks.network_racks, 2);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(SuperPod, MixedStepDrawsLessThanTheMaximum) {
  const PowerReport p = compute_power(FacilityConfig{}, test::superpod_h100(4), h100_run(0.6), shipped_book());
  // GPU: 0.6 x 700 + 0.2 x (70 + 0.6 x 630) + 0.2 x (70 + 0.3 x 630) = 420 + 89.6 + 51.8 = 561.4 W.
  EXPECT_NEAR(p.gpu_average.value(), 561.4, 1e-9);
  // Node: 8 x 561.4 + (10,200 - 5,600) = 4,491.2 + 4,600 = 9,091.2 W.
  EXPECT_NEAR(p.node_average.value(), 9091.2, 1e-9);
  EXPECT_LT(p.it_average, p.it_peak);
}

TEST(SuperPod, ElectricityMatchesTheResearchNotesArithmetic) {
  // tco_facts.md section 7: 1,378 kW of IT at PUE 1.25 and 0.08 USD/kWh is about 1.2 M USD a year.
  FacilityConfig c;
  c.cooling.pue = 1.25;
  c.price_overrides = test::one_override("eia-us-industrial-2025", "0.08USD/kWh", 1);
  const TcoReport t = compute_tco(c, test::superpod_h100(4), h100_run(1.0), shipped_book());
  // 1,360.124 kW x 1.25 x 8,766 h x 0.08 USD/kWh = 1,192,284 USD/yr.
  EXPECT_NEAR(usd_per_year(t.electricity_busy_per_year), 1360.124 * 1.25 * 8766 * 0.08, 1.0);
  EXPECT_NEAR(usd_per_year(t.electricity_busy_per_year) / 1.2e6, 1.0, 0.02);
}

TEST(SuperPod, APowerCapBuysRackDensity) {
  FacilityConfig c;
  c.cooling.rack_power_budget = Watts{35000.0};
  const PriceBook book = shipped_book();
  const PowerReport uncapped = compute_power(c, test::superpod_h100(4), h100_run(0.6), book);
  // 35 kW / 10.2 kW = 3.43 -> 3 DGX per rack, ceil(127 / 3) = 43 compute racks.
  EXPECT_EQ(uncapped.racks.nodes_per_rack, 3);
  EXPECT_EQ(uncapped.racks.compute_racks, 43);
  c.power.gpu_power_cap = Watts{500.0};
  const PowerReport capped = compute_power(c, test::superpod_h100(4), h100_run(0.6), book);
  // Peak 8 x 500 + (10,200 - 8 x 700) = 8,600 W; 35 / 8.6 = 4.07 -> 4 per rack, 32 racks.
  EXPECT_NEAR(capped.node_peak.value(), 8600.0, 1e-9);
  EXPECT_EQ(capped.racks.compute_racks, 32);
  // Compute-bound time x ((700 - 70) / (500 - 70))^(1/3) = 1.1357; step 0.6 x 1.1357 + 0.4 = 1.0814 x.
  EXPECT_NEAR(capped.compute_slowdown, std::cbrt(630.0 / 430.0), 1e-12);
  EXPECT_NEAR(capped.step_slowdown, 0.6 * std::cbrt(630.0 / 430.0) + 0.4, 1e-12);
}

TEST(SuperPod, LiquidCoolingPacksByRackSpace) {
  FacilityConfig c;
  c.cooling.kind = Cooling::liquid;
  c.cooling.rack_power_budget = Watts{120000.0};
  const PowerReport p = compute_power(c, test::superpod_h100(4), h100_run(0.6), shipped_book());
  // 120 kW allows 11 DGX, 42U allows 5 of 8U: 5 per rack, ceil(127 / 5) = 26 racks.
  EXPECT_EQ(p.racks.nodes_per_rack, 5);
  EXPECT_EQ(p.racks.compute_racks, 26);
}

TEST(SuperPod, EveryBomLineAndYearlyCostIsTraceableToThePriceBook) {
  const PriceBook book = shipped_book();
  const TcoReport t = compute_tco(FacilityConfig{}, test::superpod_h100(4), h100_run(0.6), book);
  for (const BomLine& l : t.bom.lines) {
    ASSERT_TRUE(book.contains(l.price_id)) << l.item;
    EXPECT_DOUBLE_EQ(l.unit_price.value(), book.at(l.price_id).price.amount) << l.item;
    EXPECT_EQ(l.citation, cite(book.at(l.price_id)));
  }
  for (const AnnualCost& a : t.annual) {
    if (!a.price_id.empty()) {
      EXPECT_TRUE(book.contains(a.price_id)) << a.item;
    }
  }
  for (const CloudComparison& c : t.cloud) EXPECT_TRUE(book.contains(c.price_id)) << c.label;
  // 127 DGX at 269,010 USD = 34.16 M USD of the bill.
  EXPECT_NEAR(t.bom.total("compute").value(), 127 * 269010.0, 1e-3);
}

}  // namespace
}  // namespace cs
