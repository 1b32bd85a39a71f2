// The power-cap model: kernel time and board power against the SM clock, and the clock a mix settles at.
#include "sim/hardware/power_cap_model.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace cs {
namespace {

// A round-number model: f_max 2000 MHz in 100 MHz steps, beta 0.5, gamma 2, static 100 W, limit 700 W.
PowerCapModel model() {
  PowerCapModel m;
  m.max_clock_mhz = 2000;
  m.min_clock_mhz = 500;
  m.clock_step_mhz = 100;
  m.clock_bound = 0.5;
  m.power_exponent = 2.0;
  m.static_power = Watts{100};
  m.power_limit = Watts{700};
  m.held_fraction = 1.0;
  m.busy_power = Watts{900};
  return m;
}

TEST(PowerCapModel, TimeScalesOnlyInItsClockBoundShare) {
  const KernelLoad gemm{Time::us(100), 0.5, Watts{900}};
  // t(f) = t_max (1 - beta + beta f_max / f): at half the clock 100 us * (0.5 + 0.5 * 2) = 150 us.
  EXPECT_EQ(gemm.at(0.5), Time::us(150));
  EXPECT_EQ(gemm.at(1.0), Time::us(100));
  const KernelLoad copy{Time::us(100), 0.0, Watts{500}};
  EXPECT_EQ(copy.at(0.5), Time::us(100));  // HBM-bound: no clock dependence
}

TEST(PowerCapModel, PowerFollowsTheClockToTheExponent) {
  const PowerCapModel m = model();
  const KernelLoad gemm{Time::us(100), 0.5, Watts{900}};
  // P(f) = 100 W + 900 W * (f / f_max)^2: 1000 W at f_max, 100 + 900 * 0.64 = 676 W at 0.8.
  EXPECT_DOUBLE_EQ(m.power(gemm, 1.0).value(), 1000.0);
  EXPECT_DOUBLE_EQ(m.power(gemm, 0.8).value(), 676.0);
}

TEST(PowerCapModel, AKernelAloneSettlesAtTheHighestStepUnderTheLimit) {
  const PowerCapModel m = model();
  const std::vector<KernelLoad> gemm{{Time::us(100), 0.5, Watts{900}}};
  // 100 + 900 x^2 <= 700  <=>  x <= sqrt(2/3) = 0.8165: the 100 MHz step below is 1600 MHz (x = 0.8, 676 W);
  // 1700 MHz would draw 100 + 900 * 0.7225 = 750 W.
  EXPECT_DOUBLE_EQ(m.sustained_clock(gemm), 0.8);
  // A user's 500 W limit: 100 + 900 x^2 <= 500  <=>  x <= 0.667: 1300 MHz (x = 0.65, 480 W).
  EXPECT_DOUBLE_EQ(m.sustained_clock(gemm, Watts{500}), 0.65);
  // A light kernel never reaches the limit: 100 + 400 = 500 W at f_max.
  const std::vector<KernelLoad> light{{Time::us(100), 0.5, Watts{400}}};
  EXPECT_DOUBLE_EQ(m.sustained_clock(light), 1.0);
}

TEST(PowerCapModel, AMixRunsAtTheClockOfItsTimeWeightedPower) {
  const PowerCapModel m = model();
  // A GEMM (900 W dynamic, beta 0.5) and a copy (300 W dynamic, beta 0) of 100 us each at f_max.
  const std::vector<KernelLoad> mix{{Time::us(100), 0.5, Watts{900}}, {Time::us(100), 0.0, Watts{300}}};
  // At x = 0.9: GEMM 100 * (0.5 + 0.5 / 0.9) = 105.56 us at 100 + 900 * 0.81 = 829 W; copy 100 us at
  // 100 + 300 * 0.81 = 343 W; mean (105.56 * 829 + 100 * 343) / 205.56 = 592.6 W <= 700.
  // At x = 1.0: (100 * 1000 + 100 * 400) / 200 = 700 W <= 700: the mix runs unthrottled.
  EXPECT_DOUBLE_EQ(m.sustained_clock(mix), 1.0);
  EXPECT_NEAR(m.mix_power(mix, 0.9).value(), (105.5555556 * 829 + 100 * 343) / 205.5555556, 1e-3);  // ns rounding
  // Double the GEMM's share: at x = 1, (200 * 1000 + 100 * 400) / 300 = 800 W > 700; at x = 0.9,
  // (211.11 * 829 + 100 * 343) / 311.11 = 672.8 W <= 700: the mix settles at 1800 MHz, between the GEMM
  // alone (1600 MHz) and the copy alone (2000 MHz).
  const std::vector<KernelLoad> heavy{{Time::us(200), 0.5, Watts{900}}, {Time::us(100), 0.0, Watts{300}}};
  EXPECT_DOUBLE_EQ(m.sustained_clock(heavy), 0.9);
}

TEST(PowerCapModel, TheBusyClockIsTheBusyLoadsOwn) {
  const PowerCapModel m = model();
  // busy_power 900 W, as the GEMM above: 1600 MHz under 700 W, 1300 MHz under 500 W.
  EXPECT_DOUBLE_EQ(m.busy_clock(Watts{700}), 0.8);
  EXPECT_DOUBLE_EQ(m.busy_clock(Watts{500}), 0.65);
}

TEST(PowerCapModel, NothingFitsBelowTheLowestClock) {
  const PowerCapModel m = model();
  const std::vector<KernelLoad> gemm{{Time::us(100), 0.5, Watts{900}}};
  // 120 W: 100 + 900 x^2 <= 120 needs x <= 0.149, below the lowest clock (500 / 2000 = 0.25).
  EXPECT_DOUBLE_EQ(m.sustained_clock(gemm, Watts{120}), 0.25);
}

}  // namespace
}  // namespace cs
