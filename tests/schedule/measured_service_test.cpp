// Services given by measured latency against batch size: the table's interpolation, the batcher on arrivals whose
// every latency is worked out by hand, the replicas a rate needs, the located errors of a bad table, and the
// shipped example (the seed's recommendation model by day, training by night) under two isolations.
#include "sim/schedule/measured_service.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/schedule/schedule_config.hpp"
#include "sim/schedule/schedule_model.hpp"
#include "sim/schedule/schedule_report.hpp"

namespace cs {
namespace {

std::string measured_tmp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() /
                   (std::string("cs_measured_test_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

std::string csv_error(const std::string& text) {
  const std::string path = measured_tmp("table.csv", text);
  try {
    (void)read_latency_csv(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(MeasuredService, LatencyIsInterpolatedLinearlyBetweenMeasuredBatchesAndNeverExtrapolated) {
  const LatencyCurve c({{1, 0.010}, {5, 0.030}, {9, 0.040}});
  EXPECT_DOUBLE_EQ(c.at(1), 0.010);
  EXPECT_DOUBLE_EQ(c.at(5), 0.030);
  EXPECT_DOUBLE_EQ(c.at(3), 0.020);  // 10 + (3 - 1) / (5 - 1) x (30 - 10) ms
  EXPECT_DOUBLE_EQ(c.at(7), 0.035);  // 30 + (7 - 5) / (9 - 5) x (40 - 30) ms
  EXPECT_DOUBLE_EQ(c.at(9), 0.040);
  EXPECT_THROW((void)c.at(10), std::out_of_range);
  EXPECT_THROW((void)c.at(0), std::out_of_range);
  // Peak throughput: b / L(b) is 100/s at 1, 166.7 at 5, 225 at 9; at most max_batch 5: 166.7/s.
  EXPECT_DOUBLE_EQ(c.peak_throughput(9), 9 / 0.040);
  EXPECT_DOUBLE_EQ(c.peak_throughput(5), 5 / 0.030);
  EXPECT_THROW(LatencyCurve({{2, 0.01}}), std::invalid_argument);
}

TEST(MeasuredService, ALoneRequestWaitsTheQueueDelayThenRunsAsABatchOfOne) {
  // 10 requests/s, equal gaps of 100 ms: each arrives to an idle replica and an empty queue, waits the 5 ms
  // delay for company that never comes, and runs alone in 10 ms: every latency is 15 ms.
  const LatencyCurve c({{1, 0.010}, {8, 0.030}});
  ReplicaProbeSpec s{.batching = {.max_batch = 8, .max_queue_delay_s = 0.005},
                     .slo_s = 0.015,
                     .arrivals = RequestDistribution::constant};
  const ReplicaProbe p = probe_measured_replica(c, s, 10.0, 1.0, 60.0);
  EXPECT_EQ(p.requests, 600);
  EXPECT_NEAR(p.latency_p99_s, 0.015, 1e-12);
  EXPECT_DOUBLE_EQ(p.attainment, 1.0);
  EXPECT_DOUBLE_EQ(p.mean_batch, 1.0);
  EXPECT_NEAR(p.busy, 0.1, 1e-12);  // 10 batches/s x 10 ms
  // Slowed x2 by a co-located job, the batch takes 20 ms (the delay timer is not slowed): 25 ms, all missing.
  const ReplicaProbe slow = probe_measured_replica(c, s, 10.0, 2.0, 60.0);
  EXPECT_NEAR(slow.latency_p99_s, 0.025, 1e-12);
  EXPECT_DOUBLE_EQ(slow.attainment, 0.0);
}

TEST(MeasuredService, AFullBatchIsDispatchedWithoutWaitingForTheDelay) {
  // 1,000 requests/s every 1 ms, max_batch 4, delay 10 ms, a batch of 4 takes 2 ms. Requests 0..3 arrive at 0..3
  // ms; the batch is full at 3 ms and runs to 5 ms: latencies 5, 4, 3, 2 ms. The next four arrive at 4..7 ms, the
  // replica is free at 5, full at 7, done at 9: the same 5, 4, 3, 2 ms, and so on. Busy 2 ms in every 4.
  const LatencyCurve c({{1, 0.001}, {4, 0.002}});
  ReplicaProbeSpec s{.batching = {.max_batch = 4, .max_queue_delay_s = 0.010},
                     .slo_s = 0.004,
                     .arrivals = RequestDistribution::constant};
  const ReplicaProbe p = probe_measured_replica(c, s, 1000.0, 1.0, 60.0);
  EXPECT_EQ(p.requests, 60000);
  EXPECT_NEAR(p.latency_p99_s, 0.005, 1e-9);
  EXPECT_NEAR(p.attainment, 0.75, 1e-12);  // the first of every four waits 5 ms > 4 ms
  EXPECT_DOUBLE_EQ(p.mean_batch, 4.0);
  EXPECT_NEAR(p.busy, 0.5, 1e-6);
}

TEST(MeasuredService, ReplicasNeededAreRateTimesLatencyOverBatchWhenLatencyIsFlat) {
  // Every batch up to 8 takes 20 ms; 1,000 requests/s with equal gaps, no queue delay, SLO 45 ms. A replica
  // completes at most 8 / 20 ms = 400 requests/s, so rate x latency / batch = 1000 x 0.020 / 8 = 2.5 -> 3.
  // On 2 replicas (500/s each) 10 arrive per 20 ms batch of 8: the queue grows without end and latencies pass
  // any bound. On 3 (333/s, a request every 3 ms) at most 7 arrive per batch: each waits at most one batch in
  // progress plus its own, under 40 ms.
  const LatencyCurve c({{1, 0.020}, {8, 0.020}});
  ReplicaProbeSpec s{
      .batching = {.max_batch = 8, .max_queue_delay_s = 0}, .slo_s = 0.045, .arrivals = RequestDistribution::constant};
  MeasuredReplicaModel m(c, s, 0.99);
  EXPECT_EQ(m.replicas_for(1000.0), 3);
  EXPECT_LT(m.evaluate(1000.0 / 3, 1.0).latency_p99_s, 0.040);
  EXPECT_LT(m.evaluate(500.0, 1.0).attainment, 0.5);
  EXPECT_EQ(m.replicas_for(0.0), 0);
  // 9,000/s needs 9000 x 0.020 / 8 = 22.5 -> 23: 391/s each, at most 8 arrive per 20 ms batch.
  EXPECT_EQ(m.replicas_for(9000.0), 23);
  // Poisson arrivals at the same means: stability alone needs 3; the chosen count meets 99% and one fewer does not.
  s.arrivals = RequestDistribution::poisson;
  MeasuredReplicaModel poisson(c, s, 0.99);
  const int n = poisson.replicas_for(1000.0);
  EXPECT_GE(n, 3);
  EXPECT_GE(poisson.evaluate(1000.0 / n, 1.0).attainment, 0.99);
  EXPECT_LT(poisson.evaluate(1000.0 / (n - 1), 1.0).attainment, 0.99);
}

TEST(MeasuredService, AMalformedTableFileIsLocatedAtItsLineAndColumn) {
  EXPECT_EQ(csv_error("batch,latency_s\n1,0.002\n8,0.003\n"), "");
  // Unknown column: the header's third cell starts at column 17.
  EXPECT_NE(csv_error("batch,latency_s,gpu\n1,0.002,0\n").find("table.csv:1:17: gpu: unknown column"),
            std::string::npos);
  // A comment line ahead of the header moves it to line 2.
  EXPECT_NE(csv_error("# invented\nbatch,latency_ms\n1,2\n").find("table.csv:2:7: latency_ms: unknown column"),
            std::string::npos);
  EXPECT_NE(csv_error("batch,latency_s\n1,0.002\n8,0.003\n8,0.004\n").find("table.csv:4:1: batch: must be above"),
            std::string::npos);
  EXPECT_NE(csv_error("batch,latency_s\n1,0.002\n8,-0.003\n").find("table.csv:3:3: latency_s: must be positive"),
            std::string::npos);
  EXPECT_NE(csv_error("batch,latency_s\n1,0.002\n2.5,0.003\n").find("table.csv:3:1: batch: must be a positive whole"),
            std::string::npos);
  EXPECT_NE(csv_error("batch,latency_s\n1,0.002\n16,fast\n").find("table.csv:3:4: latency_s: expected a number"),
            std::string::npos);
  EXPECT_NE(csv_error("batch,latency_s\n4,0.002\n").find("table.csv:2:1: batch: the table must start at batch 1"),
            std::string::npos);
  EXPECT_NE(csv_error("batch,latency_s\n").find("no rows"), std::string::npos);
}

const std::string kMeasuredCluster = std::string(CS_SOURCE_DIR) + "/scenarios/gpt3-13b-32xh100-one-switch.yaml";

std::string schedule_error(const std::string& services) {
  const std::string path =
      measured_tmp("sched.yaml", "format_version: 1\nname: t\ncluster:\n  scenario: " + kMeasuredCluster +
                                     "\nservices:\n" + services);
  try {
    (void)load_schedule_file(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(MeasuredService, TheScheduleFileRefusesABadMeasuredBlockAtItsKey) {
  const std::string head = "  - name: r\n    rate: [100]\n    measured:\n";
  // Inline table: fine, then a batch that goes back down, then an unknown key, then max_batch beyond the table.
  EXPECT_EQ(
      schedule_error(head + "      latency: [{batch: 1, latency: 2ms}, {batch: 8, latency: 3ms}]\n      slo: 20ms\n"),
      "");
  EXPECT_NE(
      schedule_error(head + "      latency: [{batch: 1, latency: 2ms}, {batch: 1, latency: 3ms}]\n      slo: 20ms\n")
          .find("sched.yaml:9:51: services[0].measured.latency[1].batch: must be above the previous"),
      std::string::npos)
      << schedule_error(head +
                        "      latency: [{batch: 1, latency: 2ms}, {batch: 1, latency: 3ms}]\n      slo: 20ms\n");
  EXPECT_NE(schedule_error(head + "      latency: [{batch: 1, latency: 2ms}]\n      slo: 20ms\n      max_batchs: 4\n")
                .find("sched.yaml:11:7"),
            std::string::npos);
  EXPECT_NE(schedule_error(head + "      latency: [{batch: 1, latency: 2ms}]\n      slo: 20ms\n      max_batch: 4\n")
                .find("exceeds the largest measured batch 1"),
            std::string::npos);
  EXPECT_NE(schedule_error(head + "      slo: 20ms\n").find("needs its latency table"), std::string::npos);
  EXPECT_NE(schedule_error("  - name: r\n    rate: [100]\n").find("needs a scenario"), std::string::npos);
  // A table file that does not read: the schedule's key and the file's own line and column, both.
  measured_tmp("bad.csv", "batch,latency_s\n1,0.002\n8,-1\n");
  const std::string e = schedule_error(head + "      latency_file: bad.csv\n      slo: 20ms\n");
  EXPECT_NE(e.find("services.r.measured.latency_file"), std::string::npos) << e;
  EXPECT_NE(e.find("bad.csv:3:3: latency_s: must be positive"), std::string::npos) << e;
  measured_tmp("ok.csv", "batch,latency_s\n1,0.002\n8,0.003\n");
  EXPECT_NE(schedule_error(head + "      latency_file: ok.csv\n      slo: 20ms\n      max_batch: 16\n")
                .find("exceeds the largest measured batch 8"),
            std::string::npos);
}

TEST(MeasuredService, TheShippedRecommendationDayAndTrainingNightRunsUnderBothIsolations) {
  const std::string file = std::string(CS_SOURCE_DIR) + "/scenarios/schedules/recsys-day-train-night-32xh100.yaml";
  const ScheduleRun shared = run_schedule(load_schedule_file(file));
  const ScheduleRun nodes = run_schedule(load_schedule_file(file, {{"isolation", "nodes"}}));
  ASSERT_EQ(shared.result.services.size(), 1u);
  const ServiceOutcome& s = shared.result.services[0];
  const ServiceOutcome& n = nodes.result.services[0];
  EXPECT_TRUE(s.measured);
  EXPECT_FALSE(s.ttft_p99_s);
  ASSERT_TRUE(s.latency_p99_s && n.latency_p99_s);
  // On their own nodes the replicas keep the 25 ms SLO in every hour; time-sliced onto training GPUs, slower.
  EXPECT_GE(n.slo_attainment, 0.99);
  EXPECT_LE(*n.latency_p99_s, 0.025);
  EXPECT_GT(*s.latency_p99_s, *n.latency_p99_s);
  EXPECT_LT(s.slo_attainment, n.slo_attainment);
  const auto j = schedule_json(shared);
  const auto& svc = j["services"][0];
  for (const char* k : {"name", "kind", "given_by", "slo_attainment", "latency_p99_s", "ttft_p99_s", "tpot_p99_s",
                        "gpu_hours", "energy_kwh", "cost_usd", "hours"}) {
    EXPECT_TRUE(svc.contains(k)) << k;
  }
  EXPECT_EQ(svc["given_by"], "measured");
  EXPECT_TRUE(svc["ttft_p99_s"].is_null());
  EXPECT_EQ(svc["hours"].size(), 48u);
  EXPECT_TRUE(svc["hours"][12].contains("latency_p99_s"));
  EXPECT_NE(schedule_trace(shared).find("latency p99 ms"), std::string::npos);
}

}  // namespace
}  // namespace cs
