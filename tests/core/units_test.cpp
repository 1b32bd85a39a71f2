#include "sim/core/units.hpp"

#include <gtest/gtest.h>

namespace cs {
namespace {

TEST(Units, ParsesTimes) {
  EXPECT_EQ(parse_time("0.5us"), Time::ns(500));
  EXPECT_EQ(parse_time("2 ms"), Time::ns(2'000'000));
  EXPECT_EQ(parse_time("1s"), Time::ns(1'000'000'000));
  EXPECT_EQ(parse_time("3ns"), Time::ns(3));
  EXPECT_EQ(parse_time("30d").seconds(), 30 * 86400.0);
  EXPECT_EQ(parse_time("1.5h").seconds(), 5400.0);
}

TEST(Units, TimeSpansMonthsAtNanosecondResolution) {
  // 120 days = 1.0368e16 ns, far below 2^63 = 9.2e18.
  const Time t = parse_time("120d") + Time::ns(1);
  EXPECT_EQ(t.count_ns(), 10'368'000'000'000'001);
}

TEST(Units, ParsesBandwidthInBitsAndBytes) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("400Gbps").value(), 50e9);   // 400e9 bit/s / 8
  EXPECT_DOUBLE_EQ(parse_bandwidth("900GB/s").value(), 900e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("25 GB/s").value(), 25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("100b/s").value(), 12.5);
}

TEST(Units, ParsesSizesWithDecimalAndBinaryPrefixes) {
  EXPECT_DOUBLE_EQ(parse_bytes("80GiB").value(), 80.0 * 1073741824.0);
  EXPECT_DOUBLE_EQ(parse_bytes("1.5TB").value(), 1.5e12);
  EXPECT_DOUBLE_EQ(parse_bytes("4KiB").value(), 4096.0);
}

TEST(Units, ParsesPowerRatesAndPrices) {
  EXPECT_DOUBLE_EQ(parse_watts("700W").value(), 700.0);
  EXPECT_DOUBLE_EQ(parse_watts("10.2kW").value(), 10200.0);
  EXPECT_DOUBLE_EQ(parse_flop_rate("989TFLOP/s").value(), 989e12);
  EXPECT_DOUBLE_EQ(parse_dollar_rate("2.99USD/h").value(), 2.99);
  EXPECT_DOUBLE_EQ(parse_dollars("1.2MUSD").value(), 1.2e6);
  EXPECT_DOUBLE_EQ(parse_joules("1kWh").value(), 3.6e6);
}

TEST(Units, RejectsMissingWrongAndUnknownUnits) {
  EXPECT_THROW((void)parse_time("5"), UnitError);           // no unit
  EXPECT_THROW((void)parse_time("5GB"), UnitError);         // wrong dimension
  EXPECT_THROW((void)parse_bandwidth("400Gb"), UnitError);  // a size, not a rate
  EXPECT_THROW((void)parse_bytes("lots"), UnitError);       // no number
  EXPECT_THROW((void)parse_watts("7 furlongs"), UnitError);
  EXPECT_THROW((void)parse_bytes("3mB"), UnitError);        // milli-bytes make no sense
}

TEST(Units, CrossUnitOperatorsHaveTheRightDimension) {
  // 1 GB over 100 GB/s = 10 ms exactly.
  EXPECT_EQ(Bytes{1e9} / Bandwidth{100e9}, Time::ms(10));
  // 2 PFLOP at 1 PFLOP/s = 2 s.
  EXPECT_EQ(Flops{2e15} / FlopRate{1e15}, Time::from_seconds(2));
  // 700 W for 1 h = 2.52 MJ.
  EXPECT_DOUBLE_EQ((Watts{700} * Time::from_seconds(3600)).value(), 2.52e6);
  // 2.99 USD/h for 30 min = 1.495 USD.
  EXPECT_DOUBLE_EQ((DollarRate{2.99} * Time::from_seconds(1800)).value(), 1.495);
}

TEST(Units, DivisionRoundsDurationsUp) {
  // 1 byte at 3 B/s = 0.333.. s -> 333333334 ns (never shorter than the exact time).
  EXPECT_EQ((Bytes{1} / Bandwidth{3}).count_ns(), 333'333'334);
}

TEST(Units, PrintsWithUnits) {
  EXPECT_EQ(to_string(Time::us(1.5)), "1.5 us");
  EXPECT_EQ(to_string(Bandwidth{450e9}), "450 GB/s");
  EXPECT_EQ(to_string(Bytes{80.0 * 1073741824.0}), "80 GiB");
  EXPECT_EQ(to_string(Watts{10200}), "10.2 kW");
}

}  // namespace
}  // namespace cs
