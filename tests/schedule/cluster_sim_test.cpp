// The scheduler on hand-computed cases: batch jobs of known sizes and durations (no simulation behind them), so
// every start and finish below is worked out by hand in the comments.
#include <gtest/gtest.h>

#include "sim/schedule/cluster_sim.hpp"

namespace cs {
namespace {

constexpr double kH = 3600.0;

ClusterModel sched_cluster(int gpus, Policy policy, Isolation iso = Isolation::gpus) {
  ClusterModel c;
  c.gpus = gpus;
  c.gpus_per_node = 8;
  c.span_s = 48 * kH;
  c.policy = policy;
  c.isolation = iso;
  c.fixed_usd_per_s = 1.0 / kH * gpus;  // $1 per GPU-hour
  c.usd_per_joule = 0;
  return c;
}

WorkJob sched_batch(const std::string& name, int gpus, double hours, double submit_h, int priority = 0) {
  WorkJob j;
  j.name = name;
  j.tenant = name == "a" ? "alpha" : "beta";
  j.sizes = {gpus};
  j.speed = {1.0};
  j.work_s = hours * kH;
  j.submit_s = submit_h * kH;
  j.priority = priority;
  j.checkpoint_s = 1e18;
  return j;
}

const JobOutcome& job(const ScheduleResult& r, const std::string& name) {
  for (const auto& j : r.jobs) {
    if (j.name == name) return j;
  }
  throw std::runtime_error("no job " + name);
}

TEST(ClusterSim, FifoRunsInSubmitOrderAndNothingPassesTheHead) {
  // 16 GPUs. a (16 GPUs, 2 h) at 0 runs 0-2 h; b and c (8 GPUs, 1 h) wait behind it and run side by side 2-3 h.
  const auto r = simulate_cluster(sched_cluster(16, Policy::fifo),
                                  {sched_batch("a", 16, 2, 0), sched_batch("b", 8, 1, 0.5), sched_batch("c", 8, 1, 0.6)}, {});
  EXPECT_DOUBLE_EQ(*job(r, "a").finished_s, 2 * kH);
  EXPECT_DOUBLE_EQ(*job(r, "b").started_s, 2 * kH);
  EXPECT_DOUBLE_EQ(*job(r, "c").started_s, 2 * kH);
  EXPECT_DOUBLE_EQ(*job(r, "c").finished_s, 3 * kH);
  EXPECT_NEAR(job(r, "b").queued_s, 1.5 * kH, 1e-6);
  EXPECT_NEAR(job(r, "a").gpu_hours, 32, 1e-9);
}

TEST(ClusterSim, ATenantOverItsQuotaWaitsForItsOwnJobsAndOthersPass) {
  // 32 GPUs, beta's quota 8. b1 (beta, 8 GPUs, 2 h) at 0 runs 0-2 h. b2 (beta, 8, 1 h) at 0.1 h would fit the free
  // GPUs but not beta's quota: it waits for b1 and runs 2-3 h. a (alpha, no quota, 16, 1 h) at 0.2 h passes it.
  // b3 (beta, 16 GPUs) exceeds the quota whatever runs: it never starts.
  ClusterModel c = sched_cluster(32, Policy::fifo);
  c.quotas = {{"beta", 8}};
  const auto r = simulate_cluster(
      c, {sched_batch("b1", 8, 2, 0), sched_batch("b2", 8, 1, 0.1), sched_batch("a", 16, 1, 0.2),
          sched_batch("b3", 16, 1, 0.3)},
      {});
  EXPECT_DOUBLE_EQ(*job(r, "b1").started_s, 0);
  EXPECT_DOUBLE_EQ(*job(r, "b2").started_s, 2 * kH);
  EXPECT_DOUBLE_EQ(*job(r, "b2").finished_s, 3 * kH);
  EXPECT_DOUBLE_EQ(*job(r, "a").started_s, 0.2 * kH);
  EXPECT_FALSE(job(r, "b3").started_s.has_value());
  EXPECT_EQ(job(r, "b3").never_fits, "needs 16 GPUs, tenant beta's quota is 8");
  // Without the quota b2 starts at once.
  const auto free = simulate_cluster(sched_cluster(32, Policy::fifo),
                                     {sched_batch("b1", 8, 2, 0), sched_batch("b2", 8, 1, 0.1)}, {});
  EXPECT_DOUBLE_EQ(*job(free, "b2").started_s, 0.1 * kH);
}

TEST(ClusterSim, EasyBackfillStartsOnlyWhatEndsBeforeTheHeadsReservation) {
  // 16 GPUs. a (8, 4 h) at 0. b (16, 1 h) at 0.1 h is the head: reserved for 4 h when a ends. c (8, 2 h) at 0.2 h
  // ends at 2.2 h <= 4 h: backfilled at once. d (8, 5 h) at 0.3 h would end after 4 h with no spare GPUs then:
  // it waits for b (4-5 h) and runs 5-10 h.
  const std::vector<WorkJob> jobs{sched_batch("a", 8, 4, 0), sched_batch("b", 16, 1, 0.1), sched_batch("c", 8, 2, 0.2),
                                  sched_batch("d", 8, 5, 0.3)};
  const auto r = simulate_cluster(sched_cluster(16, Policy::backfill), jobs, {});
  EXPECT_DOUBLE_EQ(*job(r, "c").started_s, 0.2 * kH);
  EXPECT_DOUBLE_EQ(*job(r, "c").finished_s, 2.2 * kH);
  EXPECT_DOUBLE_EQ(*job(r, "b").started_s, 4 * kH);
  EXPECT_DOUBLE_EQ(*job(r, "d").started_s, 5 * kH);
  EXPECT_DOUBLE_EQ(*job(r, "d").finished_s, 10 * kH);
  // FIFO: c waits for b too (5-7 h).
  const auto f = simulate_cluster(sched_cluster(16, Policy::fifo), jobs, {});
  EXPECT_DOUBLE_EQ(*job(f, "c").started_s, 5 * kH);
  EXPECT_DOUBLE_EQ(*job(f, "d").started_s, 5 * kH);
}

TEST(ClusterSim, PriorityPreemptsAndTheVictimResumesFromItsCheckpoint) {
  // 8 GPUs. a (8, 4 h, priority 0) at 0; b (8, 1 h, priority 10) at 1 h preempts it (a checkpoints: nothing lost)
  // and runs 1-2 h; a resumes at 2 h with 3 h left and ends at 5 h.
  const auto r = simulate_cluster(sched_cluster(8, Policy::priority),
                                  {sched_batch("a", 8, 4, 0, 0), sched_batch("b", 8, 1, 1, 10)}, {});
  EXPECT_DOUBLE_EQ(*job(r, "b").started_s, 1 * kH);
  EXPECT_DOUBLE_EQ(*job(r, "b").finished_s, 2 * kH);
  EXPECT_DOUBLE_EQ(*job(r, "a").finished_s, 5 * kH);
  EXPECT_EQ(job(r, "a").preemptions, 1);
  EXPECT_DOUBLE_EQ(job(r, "a").lost_work_s, 0);
  // Without preemption b waits for a (4-5 h).
  auto c = sched_cluster(8, Policy::priority);
  c.preemption = false;
  const auto w = simulate_cluster(c, {sched_batch("a", 8, 4, 0, 0), sched_batch("b", 8, 1, 1, 10)}, {});
  EXPECT_DOUBLE_EQ(*job(w, "b").started_s, 4 * kH);
}

ServiceModel day_service(double day_rate) {
  ServiceModel s;
  s.name = "svc";
  s.tenant = "product";
  s.gpus_per_replica = 8;
  s.min_replicas = 0;
  for (int h = 8; h < 16; ++h) s.rate[h] = day_rate;
  s.replicas_for = [](double rate) { return static_cast<int>(std::ceil(rate)); };  // one replica per request/s
  s.evaluate = [](double rate, double slowdown) {
    HourService h;
    h.attainment = rate * slowdown <= 1.0 ? 1.0 : 1.0 / (rate * slowdown);
    h.ttft_p99_s = 0.1 * slowdown;
    h.tpot_p99_s = 0.02 * slowdown;
    h.busy = std::min(1.0, rate * slowdown);
    return h;
  };
  s.colocation = {2.0, 0.5, "test"};
  s.memory_per_gpu = 30e9;
  return s;
}

WorkJob elastic_training(double work_h) {
  WorkJob j = sched_batch("train", 16, work_h, 0);
  j.kind = JobKind::training;
  j.sizes = {8, 16};
  j.speed = {0.5, 1.0};
  j.checkpoint_s = kH;
  j.memory_per_gpu = 40e9;
  return j;
}

TEST(ClusterSim, TidalShrinksTrainingByDayAndGrowsItBackAtNight) {
  // 16 GPUs. The training job (14 h of work on 16 GPUs, half speed on 8) runs on 16 from midnight: 8 h done at
  // 8 am, when the service wants one 8-GPU replica; the job shrinks to 8 and does 4 h more by 4 pm; the service
  // leaves, the job grows back to 16 and finishes its last 2 h at 6 pm.
  const auto r = simulate_cluster(sched_cluster(16, Policy::tidal, Isolation::nodes), {elastic_training(14)},
                                  {day_service(1.0)});
  const auto& t = job(r, "train");
  EXPECT_NEAR(*t.finished_s, 18 * kH, 1e-6);
  EXPECT_EQ(t.resizes, 2);
  ASSERT_EQ(r.services.size(), 1u);
  EXPECT_EQ(r.services[0].hours[9].replicas, 1);
  EXPECT_EQ(r.services[0].hours[9].colocated, 0);
  EXPECT_DOUBLE_EQ(r.services[0].slo_attainment, 1.0);
  // The service's GPU-hours: 8 GPUs for 8 h on each of the span's two days.
  EXPECT_NEAR(r.services[0].gpu_hours, 128, 1e-6);
  // Cost at $1 per GPU-hour: what each held, the rest idle.
  EXPECT_NEAR(r.per_tenant_usd.at("product"), 128, 1e-6);
  EXPECT_NEAR(r.tco_usd, 48 * 16, 1e-6);
}

TEST(ClusterSim, TimeSlicingCoLocatesTheReplicaAndSlowsBoth) {
  // No isolation: the replica lands on the training job's GPUs. While it serves (busy 1 at 1 request/s), the
  // model gives the job half its speed on those GPUs, so 8 h of the day count as 4: 14 h of work end at
  // 14 + 4 = 18 h; the replica runs 2x slower (attainment 1/2 at the test's curve).
  const auto r = simulate_cluster(sched_cluster(16, Policy::tidal, Isolation::time_slicing), {elastic_training(14)},
                                  {day_service(1.0)});
  EXPECT_NEAR(*job(r, "train").finished_s, 18 * kH, 1e-6);
  EXPECT_EQ(r.services[0].hours[9].colocated, 1);
  EXPECT_DOUBLE_EQ(r.services[0].hours[9].outcome.attainment, 0.5);
  EXPECT_DOUBLE_EQ(*r.services[0].tpot_p99_s, 0.04);
  EXPECT_EQ(r.services[0].colocation, "test");
}

TEST(ClusterSim, CoLocatedMemoryBeyondTheGpuIsAnOutOfMemoryKill) {
  auto svc = day_service(1.0);
  svc.memory_per_gpu = 60e9;  // 60 + 40 > 80 GB
  const auto r = simulate_cluster(sched_cluster(16, Policy::tidal, Isolation::time_slicing), {elastic_training(14)},
                                  {svc});
  EXPECT_GT(r.services[0].oom_kills, 0);
  EXPECT_EQ(r.services[0].hours[9].replicas, 0);
  EXPECT_DOUBLE_EQ(r.services[0].hours[9].outcome.attainment, 0.0);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("out of memory"), std::string::npos);
  EXPECT_NE(r.warnings[0].find("60 GB + 40 GB > 80 GB"), std::string::npos);
}

TEST(ClusterSim, AJobLargerThanTheClusterIsReportedNotQueued) {
  const auto r = simulate_cluster(sched_cluster(16, Policy::fifo), {sched_batch("huge", 32, 1, 0), sched_batch("b", 8, 1, 0)}, {});
  EXPECT_EQ(job(r, "huge").never_fits, "needs 32 GPUs, the cluster has 16");
  EXPECT_FALSE(job(r, "huge").started_s);
  EXPECT_DOUBLE_EQ(*job(r, "b").finished_s, 1 * kH);  // not blocked behind it
}

TEST(ClusterSim, FailuresLoseAtMostTheWorkSinceTheLastCheckpoint) {
  auto c = sched_cluster(16, Policy::backfill);
  c.node_failure_rate_per_s = 1.0 / (6 * kH);  // a node every 6 h
  c.repair_s = 2 * kH;
  WorkJob t = elastic_training(20);
  t.sizes = {16};
  t.speed = {1.0};
  t.restart_s = 600;
  const auto r = simulate_cluster(c, {t}, {});
  const auto& o = job(r, "train");
  ASSERT_GT(o.failures, 0);
  EXPECT_GT(r.node_failures, 0);
  EXPECT_GT(o.lost_work_s, 0);
  EXPECT_LE(o.lost_work_s, o.failures * t.checkpoint_s + 1e-6);
  // Lost work and restarts push the finish past 20 h (or past the span).
  EXPECT_TRUE(!o.finished_s || *o.finished_s > 20 * kH + o.lost_work_s);
}

}  // namespace
}  // namespace cs
