#include "sim/core/human_units.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace cs {
namespace {

TEST(HumanUnits, MoneyPowerAndEnergyAsAPersonReadsThem) {
  EXPECT_EQ(format_dollars(3.919e7), "$39.2 M");
  EXPECT_EQ(format_dollars(512e3), "$512 k");
  EXPECT_EQ(format_dollars(2.154), "$2.15");
  EXPECT_EQ(format_dollars(-1.5e6), "-$1.50 M");
  EXPECT_EQ(format_dollars(999.6), "$1.00 k");  // three digits: 999.6 rounds to the next prefix
  EXPECT_EQ(format_dollars_per_year(8.1e6), "$8.10 M/yr");
  EXPECT_EQ(format_watts(1.24e6), "1.24 MW");
  EXPECT_EQ(format_watts(712), "712 W");
  EXPECT_EQ(format_energy(3.6e9), "1.00 MWh");
  EXPECT_EQ(format_bytes(61.5e9), "61.5 GB");
  EXPECT_EQ(format_dollars(std::numeric_limits<double>::quiet_NaN()), "-");
}

TEST(HumanUnits, DurationsAndChanges) {
  EXPECT_EQ(format_duration(7.4 * 86400), "7.4 days");
  EXPECT_EQ(format_duration(5.2 * 3600), "5.2 h");
  EXPECT_EQ(format_duration(1.234), "1.23 s");
  EXPECT_EQ(format_duration(0.45), "450 ms");
  EXPECT_EQ(format_delta(112.3, 100), "+12.3 %");
  EXPECT_EQ(format_delta(95.9, 100), "-4.1 %");
  EXPECT_EQ(format_delta(1, 0), "");
}

}  // namespace
}  // namespace cs
