#include "sim/facility/facility_config.hpp"

#include <gtest/gtest.h>

#include "sim/input/input_node.hpp"

namespace cs {
namespace {

FacilityConfig parse(const std::string& yaml) {
  const InputNode root = InputNode::parse(yaml, "scenario.yaml");
  FacilityConfig c = parse_facility_config(root.at("facility"));
  return c;
}

std::string error_of(const std::string& yaml) {
  try {
    (void)parse(yaml);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(FacilityConfig, EmptySectionTakesDefaults) {
  const FacilityConfig c = parse("facility: {}\n");
  EXPECT_EQ(c.cooling.kind, Cooling::air);
  EXPECT_DOUBLE_EQ(c.cooling.pue, 1.5);
  EXPECT_DOUBLE_EQ(c.cooling.rack_power_budget.value(), 40800.0);
  EXPECT_EQ(c.site, Site::colocation);
  EXPECT_DOUBLE_EQ(c.finance.depreciation_years, 5.0);
  EXPECT_EQ(c.prices.electricity.id, "eia-us-industrial-2025");
  // Llama 3: 21,233,664 GPU-hours / 268 GPU failures = 79,230.1 h per GPU.
  EXPECT_NEAR(c.reliability.gpu_mtbf.seconds() / 3600.0, 79230.09, 0.01);
  // 2,654,208 node-hours / 46 host failures = 57,700.2 h per node.
  EXPECT_NEAR(c.reliability.node_mtbf.seconds() / 3600.0, 57700.17, 0.01);
}

TEST(FacilityConfig, LiquidCoolingChangesTheDefaultsAndKeysOverrideThem) {
  const FacilityConfig c = parse(R"(facility:
  storage_capacity: 2PB
  cooling: {type: liquid, rack_power_budget: 100kW, row_power_budget: 1MW}
  power: {gpu_power_cap: 600W}
  site: build
  finance: {cost_of_capital: 0.1, staff_fte: 3}
  reliability: {checkpoint_interval: 30min, spare_nodes: 2, write_bandwidth_per_node: 10GB/s}
  prices: {cloud_on_demand: lambda-h100-sxm-2024}
  price_overrides:
    - {id: qm9700, price: 40000USD}
)");
  EXPECT_DOUBLE_EQ(c.storage_capacity.value(), 2e15);
  EXPECT_EQ(c.cooling.kind, Cooling::liquid);
  EXPECT_DOUBLE_EQ(c.cooling.pue, 1.15);
  EXPECT_DOUBLE_EQ(c.cooling.rack_power_budget.value(), 100e3);
  EXPECT_DOUBLE_EQ(c.cooling.row_power_budget->value(), 1e6);
  EXPECT_DOUBLE_EQ(c.power.gpu_power_cap->value(), 600.0);
  EXPECT_EQ(c.site, Site::build);
  EXPECT_EQ(c.reliability.checkpoint_interval, Time::from_seconds(1800));
  EXPECT_EQ(c.reliability.spare_nodes, 2);
  EXPECT_DOUBLE_EQ(c.reliability.write_bandwidth_per_node.value(), 10e9);
  EXPECT_EQ(c.prices.cloud_on_demand.id, "lambda-h100-sxm-2024");
  EXPECT_EQ(c.prices.cloud_on_demand.where.line, 8);
  ASSERT_EQ(c.price_overrides.size(), 1u);
  EXPECT_EQ(c.price_overrides[0].where.line, 10);
}

TEST(FacilityConfig, BadInputsGiveLocatedErrors) {
  EXPECT_EQ(error_of("facility:\n  colour: blue\n"),
            "scenario.yaml:2:3: facility.colour: unknown key (expected one of: cooling, finance, power, "
            "price_overrides, prices, reliability, site, storage_capacity)");
  EXPECT_EQ(error_of("facility:\n  cooling: {type: oil}\n"),
            "scenario.yaml:2:19: facility.cooling.type: expected air or liquid, got \"oil\"");
  EXPECT_EQ(error_of("facility:\n  cooling: {rack_power_budget: 40}\n"),
            "scenario.yaml:2:32: facility.cooling.rack_power_budget: \"40\" has no unit; write a power such as "
            "\"700W\" or \"10.2kW\"");
  EXPECT_EQ(error_of("facility:\n  cooling: {pue: 0.9}\n"),
            "scenario.yaml:2:18: facility.cooling.pue: pue must lie in [1.000000, 3.000000]");
  EXPECT_EQ(error_of("facility:\n  power: {gpu_power_cap: -5W}\n"),
            "scenario.yaml:2:26: facility.power.gpu_power_cap: must be positive");
  EXPECT_EQ(error_of("facility:\n  reliability: {gpu_mtbf: 5000}\n"),
            "scenario.yaml:2:27: facility.reliability.gpu_mtbf: \"5000\" has no unit; write a time such as "
            "\"0.5us\", \"2ms\", \"30d\"");
  EXPECT_EQ(error_of("facility:\n  finance: {utilisation: 1.5}\n"),
            "scenario.yaml:2:26: facility.finance.utilisation: utilisation must lie in [0.000000, 1.000000]");
  EXPECT_EQ(error_of("facility:\n  site: cave\n"),
            "scenario.yaml:2:9: facility.site: expected colocation or build, got \"cave\"");
  EXPECT_EQ(error_of("facility:\n  price_overrides:\n    - {id: qm9700, price: 40000}\n"),
            "scenario.yaml:3:27: facility.price_overrides[0].price: \"40000\" has no unit; use USD, USD/h, USD/yr, "
            "USD/kWh, USD/kW/month, USD/TB or USD/W");
  EXPECT_EQ(error_of("facility:\n  prices: {electricity: x, gas: y}\n"),
            "scenario.yaml:2:28: facility.prices.gas: unknown key (expected one of: cloud_on_demand, "
            "cloud_reserved, colocation, copper_cable, electricity, facility_build, node_support, node_transceiver, "
            "optical_cable, rack, staff, storage, switch_transceiver)");
  EXPECT_EQ(error_of("facility: 5\n"), "scenario.yaml:1:11: facility: expected a mapping (the facility section)");
}

}  // namespace
}  // namespace cs
