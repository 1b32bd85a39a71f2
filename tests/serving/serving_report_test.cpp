#include "sim/serving/serving_report.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace cs {
namespace {

TEST(ServingReport, NearestRankPercentiles) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const LatencyStats s = latency_stats(v);
  EXPECT_EQ(s.count, 100);
  EXPECT_DOUBLE_EQ(s.p50_s, 50);  // the 50th of 100 sorted samples
  EXPECT_DOUBLE_EQ(s.p90_s, 90);
  EXPECT_DOUBLE_EQ(s.p99_s, 99);
  EXPECT_DOUBLE_EQ(s.max_s, 100);
  EXPECT_DOUBLE_EQ(s.mean_s, 50.5);
  EXPECT_DOUBLE_EQ(latency_stats({7.0}).p99_s, 7.0);
  EXPECT_EQ(latency_stats({}).count, 0);
  // The distribution at quantiles k/40: the least, then nearest ranks (1/40 of 100 samples is rank 3: 2.5 rounded
  // up), the median, the most.
  ASSERT_EQ(s.cdf_s.size(), 41u);
  EXPECT_DOUBLE_EQ(s.cdf_s[0], 1);
  EXPECT_DOUBLE_EQ(s.cdf_s[1], 3);
  EXPECT_DOUBLE_EQ(s.cdf_s[20], 50);
  EXPECT_DOUBLE_EQ(s.cdf_s[40], 100);
  EXPECT_TRUE(std::is_sorted(s.cdf_s.begin(), s.cdf_s.end()));
  EXPECT_TRUE(latency_stats({}).cdf_s.empty());
}

std::vector<QueueSample> series(int n, double every_s, const std::function<std::int64_t(int)>& queued) {
  std::vector<QueueSample> s;
  for (int i = 0; i < n; ++i) s.push_back({Time::from_seconds(i * every_s), queued(i)});
  return s;
}

TEST(ServingReport, QueueThatGrowsFromSomePointIsUnbounded) {
  // Empty for the first 100 s, then +10 requests/s against 50 arriving per second.
  const auto s = series(240, 2.5, [](int i) { return i * 2.5 < 100 ? std::int64_t{0} : std::int64_t(25 * i - 1000); });
  const QueueVerdict v = queue_verdict(s, 50.0, 8);
  EXPECT_TRUE(v.unbounded);
  EXPECT_NEAR(v.growth_per_s, 10.0, 1e-9);  // the slope over the last half, exactly linear there
  EXPECT_EQ(v.final_queued, 25 * 239 - 1000);
  // The last sample at or under max(8 replicas, 5% of 4,975) = 248 waiting: 25 i - 1000 <= 248 -> i = 49.
  EXPECT_EQ(v.since, Time::from_seconds(49 * 2.5));
  EXPECT_EQ(v.message,
            "the queue grew without bound from 2.0 min on (+10.0 requests/s over the last half of arrivals, 4975 waiting "
            "when arrivals ended): the deployment is overloaded");
}

TEST(ServingReport, QueueThatFluctuatesIsBounded) {
  const auto s = series(240, 15, [](int i) { return std::int64_t((i * 37) % 23); });
  const QueueVerdict v = queue_verdict(s, 50.0, 8);
  EXPECT_FALSE(v.unbounded);
  EXPECT_NE(v.message.find("stayed bounded"), std::string::npos);
  // A late burst that has not drained is not a trend: 0 until the last two samples.
  const auto burst = series(240, 15, [](int i) { return i >= 238 ? std::int64_t{400} : std::int64_t{0}; });
  EXPECT_FALSE(queue_verdict(burst, 50.0, 8).unbounded);
}

TEST(ServingReport, SummaryAndJson) {
  std::vector<Request> requests(4);
  for (auto& r : requests) {
    r.prompt = 100;
    r.output = 11;
    r.state = RequestState::finished;
  }
  // r0: TTFT 0.2 s, 10 tokens in 0.4 s (40 ms each); r1: TTFT 0.8 s (misses 500 ms); r2: one token after 0.1 s;
  // r3 rejected.
  requests[0].first_token = Time::ms(200);
  requests[0].finish = Time::ms(600);
  requests[1].arrival = Time::ms(100);
  requests[1].first_token = Time::ms(900);
  requests[1].finish = Time::ms(1000);
  requests[2].output = 1;
  requests[2].arrival = Time::ms(1900);
  requests[2].first_token = requests[2].finish = Time::ms(2000);
  requests[3].state = RequestState::rejected;
  ReplicaStats stats;
  stats.busy = Time::ms(1500);
  stats.block_seconds = 10.0;
  stats.max_blocks = 50;
  ReplicaMemory mem;
  mem.blocks = 100;
  const ServingResult r = summarise_serving(requests, {stats}, mem, ServiceLevel{}, {}, Time::ms(2000), Time::ms(2000));
  EXPECT_EQ(r.finished, 3);
  EXPECT_EQ(r.rejected, 1);
  EXPECT_EQ(r.makespan, Time::ms(2000));
  EXPECT_EQ(r.slo_met, 2);  // r1's 800 ms TTFT misses
  EXPECT_DOUBLE_EQ(r.tpot.max_s, 0.04);
  EXPECT_EQ(r.tpot.count, 2);  // r2 has no second token
  EXPECT_DOUBLE_EQ(r.requests_per_s, 1.5);
  EXPECT_DOUBLE_EQ(r.output_tokens_per_s, 23.0 / 2.0);
  EXPECT_DOUBLE_EQ(r.gpu_busy, 0.75);
  EXPECT_DOUBLE_EQ(r.kv_occupancy_mean, 10.0 / (2.0 * 100));
  EXPECT_DOUBLE_EQ(r.kv_occupancy_max, 0.5);
  const nlohmann::json j = serving_json(r);
  EXPECT_DOUBLE_EQ(j["ttft_s"]["p50"].get<double>(), 0.2);
  EXPECT_EQ(j["requests"]["rejected"].get<int>(), 1);
  EXPECT_DOUBLE_EQ(j["goodput_requests_per_s"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["kv_cache"]["occupancy_max"].get<double>(), 0.5);
  EXPECT_FALSE(j["queue"]["unbounded"].get<bool>());
}

}  // namespace
}  // namespace cs
