#include "sim/serving/arrival_process.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace cs {
namespace {

TEST(ArrivalProcess, PoissonAtItsRate) {
  LoadConfig load;
  load.rate = 50;
  RequestSource source(load, Time::from_seconds(1000), 1);
  std::int64_t n = 0;
  Time last;
  while (const auto r = source.next()) {
    ASSERT_GE(r->arrival, last);
    last = r->arrival;
    ++n;
  }
  // 50,000 expected; a Poisson count's standard deviation is its square root, 224.
  EXPECT_NEAR(static_cast<double>(n), 50000.0, 1000.0);
  EXPECT_LT(last, Time::from_seconds(1000));
}

TEST(ArrivalProcess, DiurnalRatesHourByHour) {
  LoadConfig load;
  load.arrivals = ArrivalKind::diurnal;
  for (int h = 0; h < 24; ++h) load.diurnal.push_back(h % 3 == 0 ? 0.0 : static_cast<double>(h));
  ServingRng rng(3);
  ArrivalTimes times(load, rng);
  std::vector<double> per_hour(26, 0.0);
  for (Time t = times.next(); t < Time::from_seconds(26 * 3600); t = times.next()) {
    per_hour[static_cast<std::size_t>(t.seconds() / 3600)] += 1;
  }
  for (int h = 0; h < 26; ++h) {
    const double expected = 3600.0 * load.diurnal[static_cast<std::size_t>(h % 24)];
    EXPECT_NEAR(per_hour[static_cast<std::size_t>(h)], expected, 5.0 * std::sqrt(expected) + 1e-9) << "hour " << h;
  }
  EXPECT_DOUBLE_EQ(times.rate_at(Time::from_seconds(25 * 3600 + 10)), 1.0);  // the next day's 1 a.m.
}

TEST(ArrivalProcess, LengthDistributions) {
  ServingRng rng(11);
  const LengthDist fixed{.kind = LengthKind::fixed, .value = 77};
  EXPECT_EQ(draw_length(fixed, rng), 77);
  const LengthDist uniform{.kind = LengthKind::uniform, .min = 5, .max = 8};
  std::vector<int> seen(9, 0);
  for (int i = 0; i < 4000; ++i) ++seen[static_cast<std::size_t>(draw_length(uniform, rng))];
  for (int v = 5; v <= 8; ++v) EXPECT_NEAR(seen[static_cast<std::size_t>(v)], 1000, 150) << v;
  // Lognormal with mean 1,000 and sigma 0.5: the sample mean near 1,000 (sd of the mean 0.53 x 1000 / 200).
  const LengthDist lognormal{.kind = LengthKind::lognormal, .min = 1, .max = 1 << 30, .mean = 1000, .sigma = 0.5};
  double sum = 0;
  for (int i = 0; i < 40000; ++i) sum += static_cast<double>(draw_length(lognormal, rng));
  EXPECT_NEAR(sum / 40000.0, 1000.0, 15.0);
  const LengthDist clamped{.kind = LengthKind::lognormal, .min = 900, .max = 1100, .mean = 1000, .sigma = 2.0};
  for (int i = 0; i < 1000; ++i) {
    const auto v = draw_length(clamped, rng);
    ASSERT_GE(v, 900);
    ASSERT_LE(v, 1100);
  }
}

TEST(ArrivalProcess, SameSeedSameRequestsOtherSeedOthers) {
  LoadConfig load;
  load.rate = 5;
  load.prompt = {.kind = LengthKind::lognormal, .mean = 300, .sigma = 1};
  const auto draw = [&](std::uint64_t seed) {
    RequestSource s(load, Time::from_seconds(100), seed);
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    while (const auto r = s.next()) out.emplace_back(r->arrival.count_ns(), r->prompt);
    return out;
  };
  EXPECT_EQ(draw(4), draw(4));
  EXPECT_NE(draw(4), draw(5));
}

TEST(ArrivalProcess, ATraceEndsOrIsCut) {
  LoadConfig load;
  load.arrivals = ArrivalKind::trace;
  load.prompt.kind = LengthKind::trace;
  load.output = {.kind = LengthKind::fixed, .value = 9};
  const std::vector<TraceRequest> trace{{Time::ms(0), 10, 1}, {Time::ms(500), 20, 2}, {Time::ms(1500), 30, 3}};
  RequestSource whole(load, Time::max(), 1, &trace);
  EXPECT_EQ(whole.next()->prompt, 10);
  const auto second = whole.next();
  EXPECT_EQ(second->arrival, Time::ms(500));
  EXPECT_EQ(second->output, 9);  // drawn, not traced
  EXPECT_TRUE(whole.next().has_value());
  EXPECT_FALSE(whole.next().has_value());
  RequestSource cut(load, Time::ms(1000), 1, &trace);
  EXPECT_TRUE(cut.next() && cut.next());
  EXPECT_FALSE(cut.next().has_value());
}

}  // namespace
}  // namespace cs
