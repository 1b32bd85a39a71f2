#include "sim/facility/price_book.hpp"

#include <gtest/gtest.h>

#include "sim/facility/tco_model.hpp"
#include "sim/input/input_node.hpp"
#include "small_cluster.hpp"

namespace cs {
namespace {

std::string price_book_error_of(const std::string& yaml) {
  try {
    (void)PriceBook::parse(InputNode::parse(yaml, "book.yaml"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PriceUnits, ParsesEveryQuotedUnit) {
  EXPECT_DOUBLE_EQ(parse_price("36000USD").amount, 36000.0);
  EXPECT_DOUBLE_EQ(parse_price("1.2MUSD").amount, 1.2e6);
  EXPECT_EQ(parse_price("2.99USD/h").unit, PriceUnit::per_hour);
  EXPECT_DOUBLE_EQ(parse_price("82.6USD/MWh").amount, 0.0826);  // per kWh
  EXPECT_EQ(parse_price("184USD/kW/month").unit, PriceUnit::per_kw_month);
  EXPECT_DOUBLE_EQ(parse_price("250000USD/PB").amount, 250.0);   // per TB
  EXPECT_DOUBLE_EQ(parse_price("15MUSD").amount, 15e6);
  EXPECT_DOUBLE_EQ(parse_price("15000000USD/MW").amount, 15.0);  // per W
  EXPECT_THROW((void)parse_price("36000"), UnitError);
  EXPECT_THROW((void)parse_price("36000EUR"), UnitError);
  EXPECT_THROW((void)parse_price("-5USD"), UnitError);
}

TEST(PriceUnits, EnergyPriceAndCapacityRentConvert) {
  // 0.1 USD/kWh x 1 kWh (3.6 MJ) = 0.1 USD.
  EXPECT_NEAR((usd_per_kwh(0.1) * Joules{3.6e6}).value(), 0.1, 1e-12);
  // 100 USD/kW/month x 2 kW x 1 month (730.5 h) = 200 USD.
  EXPECT_NEAR(capacity_cost(usd_per_kw_month(100.0), Watts{2000.0}, Time::from_seconds(730.5 * 3600)).value(), 200.0,
              1e-9);
}

TEST(PriceBook, ShippedBookLoadsAndEveryEntryIsSourced) {
  const PriceBook book = PriceBook::load(std::string(CS_SOURCE_DIR) + "/data/pricebook.yaml");
  ASSERT_GT(book.items().size(), 20u);
  for (const PriceItem& i : book.items()) {
    EXPECT_FALSE(i.source.empty()) << i.id;
    EXPECT_FALSE(i.date.empty()) << i.id;
    EXPECT_GT(i.where.line, 0) << i.id;
  }
  // The defaults of FacilityConfig all resolve, with their units.
  EXPECT_NO_THROW(check_price_choice(PriceChoice{}, book));
  EXPECT_DOUBLE_EQ(book.power(PriceRef{"dgx-h100"}, true).value(), 10200.0);
  // Topology files name hardware by model; the book maps those names to entries.
  ASSERT_NE(book.find_model("DGX H100"), nullptr);
  EXPECT_EQ(book.find_model("DGX H100")->id, "dgx-h100");
  EXPECT_EQ(book.find_model("QM9700")->id, "qm9700");
  EXPECT_EQ(book.find_model("SN9999"), nullptr);
  EXPECT_EQ(book.at("dgx-h100").rack_units, 8);
  EXPECT_THROW((void)book.for_model("SN9999", "compute leaf switch"), InputError);
}

TEST(PriceBook, ErrorsAreLocated) {
  const std::string head = "format_version: 1\nitems:\n";
  EXPECT_EQ(price_book_error_of("format_version: 2\nitems: []\n"),
            "book.yaml:1:17: format_version: unsupported price book format_version; this build reads version 1");
  EXPECT_EQ(price_book_error_of(head + "  - {id: a, name: x, price: 5EUR, source: s, date: 2024, quality: P}\n"),
            "book.yaml:3:29: items[0].price: unknown price unit \"EUR\"; use USD, USD/h, USD/yr, USD/kWh, "
            "USD/kW/month, USD/TB or USD/W");
  EXPECT_EQ(price_book_error_of(head + "  - {id: a, name: x, price: 5USD, date: 2024, quality: P}\n"),
            "book.yaml:3:5: items[0]: missing key \"source\"");
  EXPECT_EQ(price_book_error_of(head + "  - {id: a, name: x, price: 5USD, source: s, date: May 2024, quality: P}\n"),
            "book.yaml:3:52: items[0].date: date must read YYYY, YYYY-MM or YYYY-MM-DD");
  EXPECT_EQ(price_book_error_of(head + "  - {id: a, name: x, price: 5USD, source: s, date: 2024, quality: X}\n"),
            "book.yaml:3:67: items[0].quality: quality must be tags P, S, E or D joined by '/' (\"S/E\")");
  EXPECT_EQ(price_book_error_of(head + "  - {id: a, name: x, price: 5USD, source: s, date: 2024, quality: P, colour: red}\n"),
            "book.yaml:3:70: items[0].colour: unknown key (expected one of: date, gpu, id, model, name, "
            "power_max, power_typical, price, quality, rack_units, source)");
  EXPECT_EQ(price_book_error_of(head + "  - {id: a, name: x, price: 5USD, source: s, date: 2024, quality: P}\n"
                            "  - {id: a, name: y, price: 6USD, source: s, date: 2024, quality: P}\n"),
            "book.yaml:4:10: items[1].id: duplicate id \"a\"");
  EXPECT_EQ(price_book_error_of(head + "  - {id: a, name: x, price: 5USD, source: s, date: 2024, quality: P, power_max: 5}\n"),
            "book.yaml:3:81: items[0].power_max: \"5\" has no unit; write a power such as \"700W\" or \"10.2kW\"");
}

TEST(PriceBook, WrongUnitOrUnknownIdIsReportedAtTheReference) {
  const PriceBook book = test::small_price_book();
  try {
    (void)book.energy(PriceRef{"colo", {"s.yaml", 9, 18}, "facility.prices.electricity"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "s.yaml:9:18: facility.prices.electricity: price-book entry \"colo\" is priced in "
                           "USD/kW/month but is used as a price in USD/kWh");
  }
  try {
    (void)book.each(PriceRef{"nope", {"s.yaml", 4, 2}, "facility.prices.rack"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("s.yaml:4:2: facility.prices.rack: price-book id \"nope\" not found", 0), 0u);
  }
}

TEST(PriceBook, OverridesKeepTheUnitAndRecordTheirSource) {
  PriceBook book = test::small_price_book();
  book.apply_overrides(test::one_override("switch", "12000USD", 7));
  EXPECT_DOUBLE_EQ(book.each("switch").value(), 12000.0);
  EXPECT_TRUE(book.at("switch").overridden);
  EXPECT_EQ(cite(book.at("switch")), "switch (scenario override at s.yaml:7, E)");
  EXPECT_THROW(book.apply_overrides(test::one_override("switch", "3USD/h", 8)), InputError);
  EXPECT_THROW(book.apply_overrides(test::one_override("ghost", "3USD", 9)), InputError);
}

}  // namespace
}  // namespace cs
