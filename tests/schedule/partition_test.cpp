// Slurm partitions on hand-computed cases: batch and training jobs of known sizes and durations on a cluster of
// four 8-GPU nodes, each start and finish worked out in the comments; and the schedule file's located errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/schedule/cluster_sim.hpp"
#include "sim/schedule/schedule_config.hpp"
#include "sim/schedule/schedule_model.hpp"
#include "sim/schedule/schedule_report.hpp"

namespace cs {
namespace {

constexpr double kPh = 3600.0;

ClusterModel part_cluster(Policy policy) {
  ClusterModel c;
  c.gpus = 32;
  c.gpus_per_node = 8;
  c.span_s = 24 * kPh;
  c.policy = policy;
  c.isolation = Isolation::gpus;
  return c;
}

WorkJob part_job(const std::string& name, int gpus, double hours, const std::string& partition = "",
                 std::vector<int> nodes = {}) {
  WorkJob j;
  j.name = name;
  j.tenant = "t";
  j.sizes = {gpus};
  j.speed = {1.0};
  j.work_s = hours * kPh;
  j.checkpoint_s = 1e18;
  j.partition = partition;
  j.nodes = std::move(nodes);
  return j;
}

const JobOutcome& part_outcome(const ScheduleResult& r, const std::string& name) {
  for (const auto& j : r.jobs) {
    if (j.name == name) return j;
  }
  throw std::runtime_error("no job " + name);
}

TEST(Partitions, AJobRunsOnlyOnItsPartitionsNodesAndAFullPartitionQueues) {
  // Partition "small" is node 0 (GPUs 0-7). s1 and s2 (8 GPUs, 1 h, both at 0) share it: s1 0-1 h, s2 queues and
  // runs 1-2 h although 24 GPUs are free elsewhere; free (8 GPUs, no partition) starts at 0 on node 1.
  const auto r = simulate_cluster(
      part_cluster(Policy::backfill),
      {part_job("s1", 8, 1, "small", {0}), part_job("s2", 8, 1, "small", {0}), part_job("free", 8, 1)}, {});
  EXPECT_DOUBLE_EQ(*part_outcome(r, "s1").started_s, 0);
  EXPECT_DOUBLE_EQ(*part_outcome(r, "s2").started_s, 1 * kPh);
  EXPECT_DOUBLE_EQ(*part_outcome(r, "s2").finished_s, 2 * kPh);
  EXPECT_DOUBLE_EQ(part_outcome(r, "s2").queued_s, 1 * kPh);
  EXPECT_DOUBLE_EQ(*part_outcome(r, "free").started_s, 0);
  for (const auto& iv : r.intervals) {
    if (iv.who == "s1" || iv.who == "s2") {
      EXPECT_EQ(iv.first_gpu, 0);
      EXPECT_EQ(iv.gpus, 8);
    } else {
      EXPECT_GE(iv.first_gpu, 8);
    }
  }
  EXPECT_EQ(part_outcome(r, "s1").partition, "small");
}

TEST(Partitions, UnderFifoAWaitingHeadBlocksOnlyItsOwnPartition) {
  // A = nodes 0-1 (16 GPUs), B = nodes 2-3. In A: a1 (8 GPUs, 2 h) runs 0-2 h; a2 (16 GPUs, 1 h) waits for it and
  // runs 2-3 h; a3 (8 GPUs, 1 h) fits beside a1 but nothing passes A's head: 3-4 h. In B, b1 (8 GPUs, 1 h) is not
  // held by A's head: 0-1 h.
  const std::vector<int> a{0, 1}, b{2, 3};
  const auto r = simulate_cluster(part_cluster(Policy::fifo),
                                  {part_job("a1", 8, 2, "A", a), part_job("a2", 16, 1, "A", a),
                                   part_job("a3", 8, 1, "A", a), part_job("b1", 8, 1, "B", b)},
                                  {});
  EXPECT_DOUBLE_EQ(*part_outcome(r, "a2").started_s, 2 * kPh);
  EXPECT_DOUBLE_EQ(*part_outcome(r, "a3").started_s, 3 * kPh);
  EXPECT_DOUBLE_EQ(*part_outcome(r, "b1").started_s, 0);
  // Without partitions the 32 GPUs hold a1, a2 and a3 at once (fifo, all fit at 0): partitions made a2 wait.
  const auto flat = simulate_cluster(part_cluster(Policy::fifo),
                                     {part_job("a1", 8, 2), part_job("a2", 16, 1), part_job("a3", 8, 1)}, {});
  EXPECT_DOUBLE_EQ(*part_outcome(flat, "a3").started_s, 0);
}

TEST(Partitions, BackfillReservesPerPartition) {
  // A = node 0, B = node 1. a1 (4 GPUs, 2 h) runs 0-2 h. a2 (8 GPUs, 1 h), A's head, does not fit: reserved at
  // 2 h (a1's 4 GPUs and the 4 free), no spare. a3 (4 GPUs, 3 h) fits in A now but would end after 2 h: waits.
  // a4 (4 GPUs, 1 h) ends before 2 h: backfilled at 0. b (8 GPUs, 3 h) in B meets no reservation: starts at 0.
  // x (4 GPUs, 3 h, no partition) may land on any node, so it respects every reservation: waits until a2 starts
  // at 2 h; A's head is then a3, reserved at 3 h (a2's end) with 4 spare, and x fits in those: starts at 2 h.
  // a3 runs 3-6 h.
  const std::vector<int> a{0};
  const auto r =
      simulate_cluster(part_cluster(Policy::backfill),
                       {part_job("a1", 4, 2, "A", a), part_job("a2", 8, 1, "A", a), part_job("a3", 4, 3, "A", a),
                        part_job("a4", 4, 1, "A", a), part_job("b", 8, 3, "B", {1}), part_job("x", 4, 3)},
                       {});
  EXPECT_DOUBLE_EQ(*part_outcome(r, "a4").started_s, 0);
  EXPECT_DOUBLE_EQ(*part_outcome(r, "b").started_s, 0);
  EXPECT_DOUBLE_EQ(*part_outcome(r, "a2").started_s, 2 * kPh);
  EXPECT_DOUBLE_EQ(*part_outcome(r, "x").started_s, 2 * kPh);
  EXPECT_DOUBLE_EQ(*part_outcome(r, "a3").started_s, 3 * kPh);
  EXPECT_DOUBLE_EQ(*part_outcome(r, "a3").finished_s, 6 * kPh);
}

TEST(Partitions, ARunStopsAtMaxTimeCheckpointsAndRequeues) {
  // 5 h of work, a 0.5 h restart, max_time 2 h: each run does 1.5 h of work (0-2, 2-4, 4-6 h: 4.5 h done), the
  // fourth restarts at 6 h and finishes its last 0.5 h at 7 h. Three stops at the limit, nothing lost.
  WorkJob t = part_job("t", 8, 5, "short", {0});
  t.kind = JobKind::training;
  t.checkpoint_s = kPh;
  t.restart_s = 0.5 * kPh;
  t.max_run_s = 2 * kPh;
  const auto r = simulate_cluster(part_cluster(Policy::backfill), {t}, {});
  EXPECT_NEAR(*part_outcome(r, "t").finished_s, 7 * kPh, 1e-6);
  EXPECT_EQ(part_outcome(r, "t").time_limits, 3);
  EXPECT_DOUBLE_EQ(part_outcome(r, "t").lost_work_s, 0);
  EXPECT_EQ(part_outcome(r, "t").preemptions, 0);
}

TEST(Partitions, WhatCanNeverRunInItsPartitionIsReported) {
  WorkJob big = part_job("big", 16, 1, "small", {0});
  WorkJob longer = part_job("long", 8, 3, "short", {1});
  longer.max_run_s = 2 * kPh;
  const auto r = simulate_cluster(part_cluster(Policy::backfill), {big, longer}, {});
  EXPECT_EQ(part_outcome(r, "big").never_fits, "needs 16 GPUs, partition small has 8");
  EXPECT_EQ(part_outcome(r, "long").never_fits,
            "runs 3.00 h without a checkpoint, partition short's max_time is 2.00 h");
}

TEST(Partitions, AHigherTierIsConsideredFirst) {
  // A blocker holds all 32 GPUs 0-1 h. lo (priority 10, tier 0) and hi (priority 0, tier 1) both want the whole
  // cluster and wait from 0.5 h; under priority without preemption, the tier comes first: hi 1-2 h, lo 2-3 h.
  ClusterModel c = part_cluster(Policy::priority);
  c.preemption = false;
  WorkJob lo = part_job("lo", 32, 1, "lo", {0, 1, 2, 3});
  lo.priority = 10;
  lo.submit_s = 0.5 * kPh;
  WorkJob hi = part_job("hi", 32, 1, "hi", {0, 1, 2, 3});
  hi.tier = 1;
  hi.submit_s = 0.5 * kPh;
  const auto r = simulate_cluster(c, {part_job("blocker", 32, 1), lo, hi}, {});
  EXPECT_DOUBLE_EQ(*part_outcome(r, "hi").started_s, 1 * kPh);
  EXPECT_DOUBLE_EQ(*part_outcome(r, "lo").started_s, 2 * kPh);
}

std::string partition_error(const std::string& body) {
  const auto dir = std::filesystem::temp_directory_path() /
                   (std::string("cs_partition_test_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::create_directories(dir);
  const auto path = (dir / "p.yaml").string();
  std::ofstream(path) << "format_version: 1\nname: p\ncluster:\n  scenario: x.yaml\n" << body;
  try {
    (void)load_schedule_file(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Partitions, TheScheduleFileLocatesUnknownPartitionsAndBadNodeSets) {
  const std::string parts = "partitions:\n  - {name: gpu, nodes: 2, tenants: [research]}\n";
  EXPECT_EQ(partition_error(parts + "batch:\n  - {name: j, tenant: research, gpus: 8, duration: 1h, partition: gpu}\n"),
            "");
  // Line 8 is the job; its partition's value starts at column 67.
  EXPECT_NE(partition_error(parts + "batch:\n  - {name: j, tenant: research, gpus: 8, duration: 1h, partition: cpu}\n")
                .find("p.yaml:8:67: batch.j.partition: unknown partition \"cpu\"; the file's are gpu"),
            std::string::npos)
      << partition_error(parts + "batch:\n  - {name: j, tenant: research, gpus: 8, duration: 1h, partition: cpu}\n");
  EXPECT_NE(partition_error(parts + "batch:\n  - {name: j, tenant: product, gpus: 8, duration: 1h, partition: gpu}\n")
                .find("tenant \"product\" may not use partition \"gpu\""),
            std::string::npos);
  const std::string bad = "partitions:\n  - {name: gpu, node_indices: 3-1}\nbatch: [{name: j, duration: 1h}]\n";
  EXPECT_NE(partition_error(bad).find("p.yaml:6:31: partitions[0].node_indices: must be node index ranges"),
            std::string::npos)
      << partition_error(bad);
  EXPECT_NE(partition_error("partitions:\n  - {name: gpu}\nbatch: [{name: j, duration: 1h}]\n")
                .find("give nodes (a count) or node_indices"),
            std::string::npos);
  // Nodes resolved against the cluster: a count goes on from the previous partition's last node.
  PartitionSpec p{.name = "x", .nodes = 2};
  EXPECT_EQ(partition_nodes(p, 1, 4), (std::vector<int>{1, 2}));
  EXPECT_THROW((void)partition_nodes(p, 3, 4), InputError);  // nodes 3 and 4 of 0-3
  p = PartitionSpec{.name = "x", .node_indices = "0-1,3"};
  EXPECT_EQ(partition_nodes(p, 0, 4), (std::vector<int>{0, 1, 3}));
  p.node_indices = "3-4";
  EXPECT_THROW((void)partition_nodes(p, 0, 4), InputError);
}

TEST(Partitions, TheShippedPartitionsExampleKeepsEachJobOnItsNodes) {
  // long = nodes 0-1 (GPUs 0-15), short = nodes 2-3 (GPUs 16-31). In short: eval-a (16 GPUs, 2 h, at 1 h) takes
  // both nodes 1-3 h; eval-b (8 GPUs, 3 h) and eval-c (8 GPUs, 1 h), submitted at 1 h and 2 h, wait for it and
  // run side by side from 3 h; the 6-hour sweep never fits the 4-hour max_time.
  const ScheduleRun run =
      run_schedule(load_schedule_file(std::string(CS_SOURCE_DIR) + "/scenarios/schedules/partitions-32xh100.yaml"));
  const auto& r = run.result;
  EXPECT_DOUBLE_EQ(*part_outcome(r, "eval-a").started_s, 1 * kPh);
  EXPECT_DOUBLE_EQ(*part_outcome(r, "eval-a").finished_s, 3 * kPh);
  EXPECT_DOUBLE_EQ(*part_outcome(r, "eval-b").started_s, 3 * kPh);
  EXPECT_DOUBLE_EQ(*part_outcome(r, "eval-c").started_s, 3 * kPh);
  EXPECT_EQ(part_outcome(r, "sweep-6h").never_fits,
            "runs 6.00 h without a checkpoint, partition short's max_time is 4.00 h");
  ASSERT_TRUE(part_outcome(r, "gpt3-13b-pretrain").finished_s);
  for (const auto& iv : r.intervals) {
    const bool in_long = iv.who == "gpt3-13b-pretrain";
    EXPECT_EQ(iv.first_gpu < 16, in_long) << iv.who;
    EXPECT_LE(iv.first_gpu + iv.gpus, in_long ? 16 : 32) << iv.who;
  }
  const auto j = schedule_json(run);
  EXPECT_EQ(j["jobs"][1]["partition"], "short");
  EXPECT_EQ(j["jobs"][1]["time_limits"], 0);
}

}  // namespace
}  // namespace cs
