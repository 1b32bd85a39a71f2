#include "sim/facility/facility_config.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "sim/input/input_node.hpp"

namespace cs {
namespace {

FacilityConfig parse(const std::string& yaml) {
  const InputNode root = InputNode::parse(yaml, "scenario.yaml");
  FacilityConfig c = parse_facility_config(root.at("facility"));
  return c;
}

std::string config_error_of(const std::string& yaml) {
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
  EXPECT_EQ(c.finance.depreciation, years(5.0));
  EXPECT_EQ(c.finance.facility_life, years(15.0));
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
  finance: {cost_of_capital: 0.1, staff_fte: 3, depreciation_years: 4.5, facility_life_years: 20}
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
  // Lives are plain numbers of years in the file and durations in the config: 4.5 y of 8,766 h each is
  // 39,447 h = 142,009,200 s, exactly, and reads back as 4.5.
  EXPECT_EQ(c.finance.depreciation, Time::from_seconds(142009200.0));
  EXPECT_EQ(in_years(c.finance.depreciation), 4.5);
  EXPECT_EQ(in_years(c.finance.facility_life), 20.0);
  EXPECT_EQ(c.reliability.checkpoint_interval, Time::from_seconds(1800));
  EXPECT_EQ(c.reliability.spare_nodes, 2);
  EXPECT_DOUBLE_EQ(c.reliability.write_bandwidth_per_node.value(), 10e9);
  EXPECT_EQ(c.prices.cloud_on_demand.id, "lambda-h100-sxm-2024");
  EXPECT_EQ(c.prices.cloud_on_demand.where.line, 8);
  ASSERT_EQ(c.price_overrides.size(), 1u);
  EXPECT_EQ(c.price_overrides[0].where.line, 10);
}

TEST(FacilityConfig, BadInputsGiveLocatedErrors) {
  EXPECT_EQ(config_error_of("facility:\n  colour: blue\n"),
            "scenario.yaml:2:3: facility.colour: unknown key (expected one of: cooling, finance, power, "
            "price_overrides, prices, reliability, site, storage_capacity)");
  EXPECT_EQ(config_error_of("facility:\n  cooling: {type: oil}\n"),
            "scenario.yaml:2:19: facility.cooling.type: must be air or liquid, got \"oil\"");
  EXPECT_EQ(config_error_of("facility:\n  cooling: {rack_power_budget: 40}\n"),
            "scenario.yaml:2:32: facility.cooling.rack_power_budget: \"40\" has no unit; write a power such as "
            "\"700W\" or \"10.2kW\"");
  EXPECT_EQ(config_error_of("facility:\n  cooling: {pue: 0.9}\n"),
            "scenario.yaml:2:18: facility.cooling.pue: must lie in [1, 3]");
  EXPECT_EQ(config_error_of("facility:\n  power: {gpu_power_cap: -5W}\n"),
            "scenario.yaml:2:26: facility.power.gpu_power_cap: must be positive");
  EXPECT_EQ(config_error_of("facility:\n  reliability: {gpu_mtbf: 5000}\n"),
            "scenario.yaml:2:27: facility.reliability.gpu_mtbf: \"5000\" has no unit; write a time such as "
            "\"0.5us\", \"2ms\", \"30d\"");
  EXPECT_EQ(config_error_of("facility:\n  finance: {utilisation: 1.5}\n"),
            "scenario.yaml:2:26: facility.finance.utilisation: must be at most 1");
  EXPECT_EQ(config_error_of("facility:\n  finance: {depreciation_years: 40}\n"),
            "scenario.yaml:2:33: facility.finance.depreciation_years: must lie in [1, 30]");
  EXPECT_EQ(config_error_of("facility:\n  site: cave\n"),
            "scenario.yaml:2:9: facility.site: must be colocation or build, got \"cave\"");
  EXPECT_EQ(config_error_of("facility:\n  price_overrides:\n    - {id: qm9700, price: 40000}\n"),
            "scenario.yaml:3:27: facility.price_overrides[0].price: \"40000\" has no unit; use USD, USD/h, USD/yr, "
            "USD/kWh, USD/kW/month, USD/TB or USD/W");
  EXPECT_EQ(config_error_of("facility:\n  prices: {electricity: x, gas: y}\n"),
            "scenario.yaml:2:28: facility.prices.gas: unknown key (expected one of: cloud_on_demand, "
            "cloud_reserved, colocation, copper_cable, electricity, facility_build, node_support, node_transceiver, "
            "optical_cable, rack, staff, storage, switch_transceiver)");
  EXPECT_EQ(config_error_of("facility: 5\n"), "scenario.yaml:1:11: facility: expected a mapping, got \"5\"");
}

}  // namespace
}  // namespace cs

namespace cs {
namespace {

/// The keys a section accepts, as the parser itself lists them when it meets an unknown one.
std::vector<std::string> accepted_keys(const std::string& yaml) {
  const std::string message = config_error_of(yaml);
  const std::string marker = "expected one of: ";
  const std::size_t start = message.find(marker);
  if (start == std::string::npos) return {};
  std::vector<std::string> keys;
  std::string rest = message.substr(start + marker.size());
  rest = rest.substr(0, rest.find(')'));
  for (std::size_t pos = 0; pos < rest.size();) {
    const std::size_t comma = rest.find(", ", pos);
    keys.push_back(rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    pos = comma == std::string::npos ? rest.size() : comma + 2;
  }
  return keys;
}

TEST(FacilityConfig, EveryAcceptedKeyIsDocumented) {
  std::ifstream in(std::string(CS_SOURCE_DIR) + "/docs/tco.md");
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string text = doc.str();
  ASSERT_FALSE(text.empty());
  std::size_t checked = 0;
  for (const char* yaml : {"facility: {zzz: 1}\n", "facility: {cooling: {zzz: 1}}\n", "facility: {power: {zzz: 1}}\n",
                           "facility: {reliability: {zzz: 1}}\n", "facility: {finance: {zzz: 1}}\n",
                           "facility: {prices: {zzz: 1}}\n"}) {
    const std::vector<std::string> keys = accepted_keys(yaml);
    EXPECT_FALSE(keys.empty()) << yaml;
    for (const std::string& k : keys) {
      // A key appears as `key` in a table, or as `facility.key` in a heading.
      const bool documented = text.find("`" + k + "`") != std::string::npos || text.find("." + k + "`") != std::string::npos;
      EXPECT_TRUE(documented) << k << " (from " << yaml << ") is not in docs/tco.md";
      ++checked;
    }
  }
  EXPECT_GT(checked, 40u);
}

}  // namespace
}  // namespace cs
