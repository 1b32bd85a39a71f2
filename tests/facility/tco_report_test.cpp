#include "sim/facility/tco_report.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "small_cluster.hpp"

namespace cs {
namespace {

using test::small_tco;

TEST(TcoReport, JsonSectionsCarryUnitsInTheirKeys) {
  const TcoReport t = small_tco();
  const auto power = power_json(t.power);
  EXPECT_DOUBLE_EQ(power["it_average_w"].get<double>(), 1964.0);  // as in PowerModel.OneNodeOneSwitch...
  EXPECT_EQ(power["racks"]["total_racks"].get<int>(), 2);
  const auto rel = reliability_json(t.reliability);
  EXPECT_DOUBLE_EQ(rel["checkpoint_write_s"].get<double>(), 14.0);
  const auto tco = tco_json(t);
  EXPECT_DOUBLE_EQ(tco["hardware_capex_usd"].get<double>(), 114200.0);
  ASSERT_EQ(tco["bill_of_materials"].size(), t.bom.lines.size());
  EXPECT_EQ(tco["bill_of_materials"][0]["price_id"].get<std::string>(), "node");
  EXPECT_EQ(tco["bill_of_materials"][0]["source"].get<std::string>(), "node (test, 2026, E)");
  EXPECT_NEAR(tco["cloud"][0]["break_even_utilisation"].get<double>(), 0.4007858, 1e-6);
}

TEST(TcoReport, EveryRowHasAUnitAndEveryPricedRowASource) {
  for (const TcoRow& row : tco_rows(small_tco())) {
    EXPECT_FALSE(row.unit.empty()) << row.item;
    if (row.unit.rfind("USD", 0) == 0 && row.section == "bill of materials" && row.quantity) {
      EXPECT_NE(row.source.find("(test, 2026, E)"), std::string::npos) << row.item;
    }
  }
}

TEST(TcoReport, CsvHasAHeaderAndOneLinePerRow) {
  const TcoReport t = small_tco();
  const std::string csv = tco_csv(t);
  std::istringstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, "section,item,quantity,quantity_unit,value,unit,source");
  std::size_t lines = 0;
  for (std::string l; std::getline(in, l);) ++lines;
  EXPECT_EQ(lines, tco_rows(t).size());
  // The node line: 1 x 100,000 USD.
  EXPECT_NE(csv.find("bill of materials,GPU node: node,1,each,100000,USD,\"100000 USD per item; node (test, 2026, E)\""),
            std::string::npos);
}

TEST(TcoReport, TableAndSummaryNameTheUnits) {
  const TcoReport t = small_tco();
  const std::string table = tco_table(t);
  EXPECT_NE(table.find("hardware capex"), std::string::npos);
  EXPECT_NE(table.find("/GPU-h"), std::string::npos) << table;   // "$2.16/GPU-h"
  EXPECT_NE(table.find("$100 k"), std::string::npos) << table;    // the 100,000 USD node, as a person reads it
  EXPECT_EQ(table.find("e+0"), std::string::npos) << table;       // never exponent notation for money
  const std::string summary = tco_summary(t);
  // 1,964 W average, 2,220 W peak, x 1.5 = 2,946 W at the meter.
  EXPECT_NE(summary.find("1.96 kW / 2.22 kW, PUE 1.50 (air) -> 2.95 kW at the meter"), std::string::npos) << summary;
  const std::size_t capex = summary.find("capex");
  ASSERT_NE(capex, std::string::npos) << summary;
  EXPECT_EQ(summary[summary.find_first_not_of(' ', capex + 5)], '$') << summary;  // "capex  $100 k hardware"
}

}  // namespace
}  // namespace cs
