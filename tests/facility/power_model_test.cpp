#include "sim/facility/power_model.hpp"

#include <gtest/gtest.h>

#include "small_cluster.hpp"

namespace cs {
namespace {

TEST(RunProfile, FractionsFromTimesNormaliseByTheirSum) {
  // 6 + 2 + 1 + 1 = 10 s: 0.6, 0.2, 0.1, 0.1.
  const StepStateFractions f = fractions_from_times(Time::from_seconds(6), Time::from_seconds(2), Time::from_seconds(1),
                                                    Time::from_seconds(1));
  EXPECT_DOUBLE_EQ(f.compute, 0.6);
  EXPECT_DOUBLE_EQ(f.memory, 0.2);
  EXPECT_DOUBLE_EQ(f.communication, 0.1);
  EXPECT_DOUBLE_EQ(f.idle, 0.1);
  EXPECT_THROW((void)fractions_from_times(Time::zero(), Time::zero(), Time::zero(), Time::zero()), InputError);
}

TEST(PowerModel, TdpCurvePlacesStatesBetweenIdleAndTdp) {
  const GpuPowerCurve c = tdp_power_curve(test::small_run().gpu, PowerConfig{});
  EXPECT_DOUBLE_EQ(c.compute.value(), 500.0);        // TDP
  EXPECT_DOUBLE_EQ(c.memory.value(), 340.0);         // 100 + 0.6 x (500 - 100)
  EXPECT_DOUBLE_EQ(c.communication.value(), 220.0);  // 100 + 0.3 x 400
  EXPECT_DOUBLE_EQ(c.idle.value(), 100.0);
}

TEST(PowerModel, OneNodeOneSwitchAveragesStatePowerOverTheStep) {
  const PowerReport p =
      compute_power(test::small_config(), test::small_inventory(), test::small_run(), test::small_price_book());
  // GPU: 0.5 x 500 + 0.2 x 340 + 0.2 x 220 + 0.1 x 100 = 250 + 68 + 44 + 10 = 372 W.
  EXPECT_NEAR(p.gpu_average.value(), 372.0, 1e-9);
  // Server overhead: node max 2000 W - 2 x 500 W = 1000 W, drawn in full while training.
  EXPECT_NEAR(p.server_overhead_max.value(), 1000.0, 1e-9);
  EXPECT_NEAR(p.node_average.value(), 1744.0, 1e-9);  // 2 x 372 + 1000
  EXPECT_NEAR(p.node_peak.value(), 2000.0, 1e-9);     // 2 x 500 + 1000
  EXPECT_NEAR(p.node_idle.value(), 500.0, 1e-9);      // 2 x 100 + 0.3 x 1000
  // Fabric: switch 200 W + 2 optics x 10 W = 220 W.
  EXPECT_NEAR(p.switch_power.value(), 200.0, 1e-9);
  EXPECT_NEAR(p.transceiver_power.value(), 20.0, 1e-9);
  EXPECT_NEAR(p.it_average.value(), 1964.0, 1e-9);     // 1744 + 220
  EXPECT_NEAR(p.it_peak.value(), 2220.0, 1e-9);        // 2000 + 220
  EXPECT_NEAR(p.facility_average.value(), 2946.0, 1e-9);  // 1964 x PUE 1.5
  // One 1 s step: 1964 J of IT energy, 2946 J at the meter.
  EXPECT_NEAR(p.step_energy_it.value(), 1964.0, 1e-6);
  EXPECT_NEAR(p.step_energy_facility.value(), 2946.0, 1e-6);
  EXPECT_EQ(p.step_time, Time::from_seconds(1.0));
}

TEST(PowerModel, PowerCapSlowsOnlyComputeBoundTime) {
  FacilityConfig c = test::small_config();
  c.power.gpu_power_cap = Watts{400.0};
  const PowerReport p = compute_power(c, test::small_inventory(), test::small_run(), test::small_price_book());
  // Clock ratio with P - idle ~ f^3: ((400 - 100) / (500 - 100))^(1/3); compute time x (4/3)^(1/3) = 1.1006424.
  EXPECT_NEAR(p.compute_slowdown, 1.1006424163, 1e-9);
  // Step: 0.5 x 1.1006424 + 0.5 = 1.0503212 s.
  EXPECT_NEAR(p.step_slowdown, 1.0503212081, 1e-9);
  EXPECT_EQ(p.step_time, Time::from_seconds(1.0503212081));
  // GPU: (400 x 0.5503212 + 340 x 0.2 + 220 x 0.2 + 100 x 0.1) / 1.0503212 = 342.1285 / 1.0503212 = 325.7370 W.
  EXPECT_NEAR(p.gpu_average.value(), 325.7370037, 1e-6);
  // Node peak under the cap: 2 x 400 + 1000 = 1800 W.
  EXPECT_NEAR(p.node_peak.value(), 1800.0, 1e-9);
}

TEST(PowerModel, InconsistentInputsAreRejected) {
  ClusterInventory inv = test::small_inventory();
  inv.node_count = 0;
  EXPECT_THROW((void)compute_power(test::small_config(), inv, test::small_run(), test::small_price_book()), InputError);
  RunProfile run = test::small_run();
  run.fractions.idle = 0.2;  // sums to 1.1
  EXPECT_THROW((void)compute_power(test::small_config(), test::small_inventory(), run, test::small_price_book()),
               InputError);
  run = test::small_run();
  run.gpu.tdp = Watts{1200.0};  // 2 x 1200 W exceeds the node's 2000 W maximum
  EXPECT_THROW((void)compute_power(test::small_config(), test::small_inventory(), run, test::small_price_book()),
               InputError);
}

TEST(PowerModel, CapAtOrBelowIdleIsRejected) {
  FacilityConfig c = test::small_config();
  c.power.gpu_power_cap = Watts{100.0};
  EXPECT_THROW((void)compute_power(c, test::small_inventory(), test::small_run(), test::small_price_book()),
               InputError);
}

TEST(PowerModel, MeasuredCurveReplacesTheTdpCurve) {
  RunProfile run = test::small_run();
  run.measured_power = GpuPowerCurve{Watts{450.0}, Watts{300.0}, Watts{150.0}, Watts{80.0}, "NVML samples"};
  const PowerReport p = compute_power(test::small_config(), test::small_inventory(), run, test::small_price_book());
  // 0.5 x 450 + 0.2 x 300 + 0.2 x 150 + 0.1 x 80 = 225 + 60 + 30 + 8 = 323 W.
  EXPECT_NEAR(p.gpu_average.value(), 323.0, 1e-9);
  EXPECT_EQ(p.curve.source, "NVML samples");
  // The rest of the server stays node max - 2 x TDP = 1000 W: node 2 x 323 + 1000 = 1646 W, peak 2000 W.
  EXPECT_NEAR(p.node_average.value(), 1646.0, 1e-9);
  EXPECT_NEAR(p.node_peak.value(), 2000.0, 1e-9);
}

TEST(PowerModel, RacksFollowThePowerBudget) {
  const PowerReport p =
      compute_power(test::small_config(), test::small_inventory(), test::small_run(), test::small_price_book());
  // 5 kW budget / 2 kW node = 2 nodes per rack (21 by space): 1 compute rack; the 1U switch needs 1 more rack.
  EXPECT_EQ(p.racks.nodes_per_rack, 2);
  EXPECT_EQ(p.racks.compute_racks, 1);
  EXPECT_EQ(p.racks.network_racks, 1);
  EXPECT_EQ(p.racks.total_racks(), 2);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(PowerModel, WarnsWhenARackOrRowExceedsItsBudget) {
  std::vector<std::string> warnings;
  CoolingConfig cooling;
  cooling.rack_power_budget = Watts{5000.0};
  cooling.nodes_per_rack = 3;  // 3 x 2 kW = 6 kW > 5 kW
  cooling.racks_per_row = 2;
  cooling.row_power_budget = Watts{10000.0};  // 2 racks x 6 kW = 12 kW > 10 kW
  const RackPlan plan = plan_racks(cooling, 6, 2, Watts{2000.0}, 0, Watts{}, warnings);
  EXPECT_EQ(plan.compute_racks, 2);  // ceil(6 / 3)
  EXPECT_NEAR(plan.compute_rack_peak.value(), 6000.0, 1e-9);
  EXPECT_NEAR(plan.row_peak.value(), 12000.0, 1e-9);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("breaker trip risk: a compute rack of 3 nodes peaks at 6.0 kW"), std::string::npos);
  EXPECT_NE(warnings[1].find("row power budget of 10.0 kW"), std::string::npos);
}

TEST(PowerModel, ANodeAboveTheRackBudgetGetsARackOfItsOwnAndAWarning) {
  std::vector<std::string> warnings;
  CoolingConfig cooling;
  cooling.rack_power_budget = Watts{1500.0};
  const RackPlan plan = plan_racks(cooling, 3, 2, Watts{2000.0}, 0, Watts{}, warnings);
  EXPECT_EQ(plan.nodes_per_rack, 1);
  EXPECT_EQ(plan.compute_racks, 3);
  EXPECT_EQ(warnings.size(), 1u);
}

}  // namespace
}  // namespace cs
