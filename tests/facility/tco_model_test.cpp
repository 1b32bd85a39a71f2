#include "sim/facility/tco_model.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "small_cluster.hpp"

namespace cs {
namespace {

using test::small_tco;

TEST(Tco, CapitalRecoveryFactor) {
  EXPECT_DOUBLE_EQ(capital_recovery_factor(0.0, years(5.0)), 0.2);  // straight line, 1/5
  // 8% over 5 y: 0.08 x 1.08^5 / (1.08^5 - 1) = 0.08 x 1.469328 / 0.469328 = 0.2504565; the goldens hold
  // 0.2504564545668364, so the life reaches pow() as exactly 5.0.
  EXPECT_EQ(capital_recovery_factor(0.08, years(5.0)), 0.2504564545668364);
  // 10% over 4 y: 0.1 x 1.4641 / 0.4641 = 0.3154708; the same as the formula on a plain 4.0.
  const double g = std::pow(1.1, 4.0);
  EXPECT_EQ(capital_recovery_factor(0.1, years(4.0)), 0.1 * g / (g - 1.0));
  EXPECT_NEAR(capital_recovery_factor(0.1, years(4.0)), 0.3154708, 1e-7);
}

TEST(Tco, YearsRoundTripExactly) {
  // One year is 8,766 h = 31,557,600 s; every life a person writes comes back unchanged.
  EXPECT_EQ(years(1.0), Time::from_seconds(31557600.0));
  for (int hundredths = 100; hundredths <= 6000; ++hundredths) {
    const double y = hundredths / 100.0;
    EXPECT_EQ(in_years(years(y)), y) << y;
  }
}

TEST(Tco, BillOfMaterialsOfOneNodeOneSwitch) {
  const TcoReport t = small_tco();
  // node 100,000 + switch 10,000 + 2 cables x 100 + 2 optics x 500 + 10 TB x 100 + 2 racks x 1,000 = 114,200.
  EXPECT_NEAR(t.bom.total().value(), 114200.0, 1e-6);
  EXPECT_NEAR(t.bom.total("network").value(), 11200.0, 1e-6);  // 10,000 + 200 + 1,000
  EXPECT_NEAR(t.bom.total("storage").value(), 1000.0, 1e-6);
  EXPECT_NEAR(t.bom.total("facility").value(), 2000.0, 1e-6);
  EXPECT_DOUBLE_EQ(t.bom.total("spares").value(), 0.0);
  for (const BomLine& l : t.bom.lines) EXPECT_FALSE(l.price_id.empty()) << l.item;
}

TEST(Tco, YearlyCostsOfOneNodeInColocation) {
  const TcoReport t = small_tco();
  // Capital: 114,200 x 1/5 = 22,840 USD/yr (cost of capital 0).
  EXPECT_NEAR(usd_per_year(t.capital_per_year), 22840.0, 1e-6);
  // Colocation: 100 USD/kW/month x 2.22 kW peak x 12 = 2,664 USD/yr. Support: 1,000 USD/yr.
  EXPECT_NEAR(usd_per_year(t.fixed_per_year), 22840.0 + 2664.0 + 1000.0, 1e-6);
  // Electricity: 1,964 W x 1.5 x 8,766 h = 25,824.64 kWh x 0.10 = 2,582.4636 USD/yr.
  EXPECT_NEAR(usd_per_year(t.electricity_busy_per_year), 2582.4636, 1e-6);
  // Idle: (2 x 100 + 0.3 x 1000 + 220) W x 1.5 x 8,766 h x 0.10 / 1000 = 946.728 USD/yr.
  EXPECT_NEAR(usd_per_year(t.electricity_idle_per_year), 946.728, 1e-6);
  EXPECT_NEAR(usd_per_year(t.tco_per_year), 29086.4636, 1e-6);
  EXPECT_NEAR(t.tco_lifetime.value(), 5 * 29086.4636, 1e-3);
  // Per GPU-hour: 29,086.4636 / (2 x 8,766) = 1.65905 USD/h.
  EXPECT_NEAR(t.owned_per_gpu_hour.value(), 1.6590499, 1e-6);
}

TEST(Tco, TrainingRunAndCloudBreakEven) {
  const TcoReport t = small_tco();
  const double hours = t.reliability.effective_train_time.seconds() / 3600.0;  // 10,053.23 s
  EXPECT_NEAR(t.run_cost.value(), 1.6590499 * 2 * hours, 1e-4);
  EXPECT_NEAR(t.run_cost_per_million_tokens.value(), t.run_cost.value() / 1e4, 1e-9);  // 1e10 tokens
  ASSERT_EQ(t.cloud.size(), 2u);
  const CloudComparison& od = t.cloud[0];
  EXPECT_EQ(od.price_id, "od");
  EXPECT_NEAR(od.run_cost.value(), 4.0 * 2 * hours, 1e-6);
  // Break-even utilisation: (fixed 26,504 + idle 946.728) / (4 x 17,532 - (2,582.4636 - 946.728)) = 0.4007858.
  ASSERT_TRUE(od.break_even_utilisation.has_value());
  EXPECT_NEAR(*od.break_even_utilisation, 0.4007858, 1e-6);
  // Payback: 114,200 / (70,128 / 12 - (2,664 + 1,000 + 2,582.4636) / 12) = 114,200 / 5,323.4614 = 21.4522 months.
  ASSERT_TRUE(od.break_even_months.has_value());
  EXPECT_NEAR(*od.break_even_months, 21.452208, 1e-5);
}

TEST(Tco, CloudCheaperThanRunningCostsNeverBreaksEven) {
  FacilityConfig c = test::small_config();
  c.price_overrides = test::one_override("rsv", "0.01USD/h", 3);
  const TcoReport t = small_tco(c);
  EXPECT_FALSE(t.cloud[1].break_even_utilisation.has_value());
  EXPECT_FALSE(t.cloud[1].break_even_months.has_value());
  EXPECT_NE(t.cloud[1].citation.find("scenario override at s.yaml:3"), std::string::npos);
}

// A rental rate that names the GPU it rents ("gpu: H100" in the price book) is compared with the cluster's GPU:
// renting H100s is no price for a GB200 cluster's GPU-hours, so the report says so (naming the key to change);
// the same GPU, in any case, or a rate that names none, says nothing.
TEST(Tco, RentalRateForAnotherGpuIsAWarning) {
  std::string text = test::kSmallPriceBook;
  const std::string od = "{id: od, name: cloud on demand, ";
  text.replace(text.find(od), od.size(), od + "gpu: H100, ");
  const PriceBook book = PriceBook::parse(InputNode::parse(text, "small.yaml"));
  RunProfile run = test::small_run();
  run.gpu.name = "NVIDIA GB200";
  const TcoReport other = compute_tco(test::small_config(), test::small_inventory(), run, book);
  ASSERT_EQ(other.warnings.size(), 1u);
  EXPECT_NE(other.warnings[0].find("od rents H100 GPUs, not NVIDIA GB200"), std::string::npos) << other.warnings[0];
  EXPECT_NE(other.warnings[0].find("facility.prices.cloud_on_demand"), std::string::npos) << other.warnings[0];
  run.gpu.name = "NVIDIA h100 SXM5 80GB";
  EXPECT_TRUE(compute_tco(test::small_config(), test::small_inventory(), run, book).warnings.empty());
  EXPECT_TRUE(test::small_tco().warnings.empty());  // its rates name no GPU
}

TEST(Tco, BuildingTheFacilityAddsCapexAndDropsRent) {
  FacilityConfig c = test::small_config();
  c.site = Site::build;
  c.finance.facility_life = years(10.0);
  const TcoReport t = small_tco(c);
  // 10 USD/W x 2,220 W = 22,200 USD, over 10 y at 0% = 2,220 USD/yr; no colocation line.
  EXPECT_NEAR(t.facility_capex.value(), 22200.0, 1e-6);
  EXPECT_NEAR(usd_per_year(t.fixed_per_year), 22840.0 + 2220.0 + 1000.0, 1e-6);
}

TEST(Tco, UtilisationResidualValueAndRunEnergy) {
  FacilityConfig c = test::small_config();
  c.finance.utilisation = 0.5;
  c.finance.residual_value = 0.25;
  const TcoReport t = small_tco(c);
  // Capital at r = 0: 114,200 x (1 - 0.25) x 1/5 = 17,130 USD/yr.
  EXPECT_NEAR(usd_per_year(t.capital_per_year), 17130.0, 1e-6);
  // Electricity half idle, half busy: 0.5 x 946.728 + 0.5 x 2,582.4636 = 1,764.5958 USD/yr.
  EXPECT_NEAR(usd_per_year(t.tco_per_year), 17130.0 + 2664.0 + 1000.0 + 1764.5958, 1e-6);
  // Per used GPU-hour: 22,558.5958 / (2 x 8,766 x 0.5) = 2.573420 USD/h.
  EXPECT_NEAR(t.owned_per_used_gpu_hour.value(), 22558.5958 / 8766.0, 1e-9);
  // The run at the meter: 2,946 W x 10,000 s / goodput 0.994705 = 29,616,821 J.
  EXPECT_NEAR(t.run_energy_facility.value(), 29616821.0, 2.0);
}

TEST(Tco, EveryChosenPriceIsCheckedBeforeAnythingRuns) {
  FacilityConfig c = test::small_config();
  c.prices.staff = PriceRef{"colo", {"s.yaml", 12, 10}, "facility.prices.staff"};  // staff_fte is 0, still checked
  try {
    (void)small_tco(c);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "s.yaml:12:10: facility.prices.staff: price-book entry \"colo\" is priced in USD/kW/month "
                           "but is used as a price in USD/yr");
  }
}

TEST(Tco, StaffAndCostOfCapital) {
  FacilityConfig c = test::small_config();
  c.finance.staff_fte = 0.5;
  c.finance.cost_of_capital = 0.08;
  const TcoReport t = small_tco(c);
  // 114,200 x 0.2504565 = 28,602.13; colocation 2,664; support 1,000; staff 0.5 x 100,000 = 50,000.
  EXPECT_NEAR(usd_per_year(t.fixed_per_year), 114200.0 * 0.2504564546 + 2664.0 + 1000.0 + 50000.0, 1e-3);
}

}  // namespace
}  // namespace cs
