// The eager host carries on from unit to unit on a stage without pipeline neighbours: it issues the next unit's
// launches as soon as it has issued the last unit's, while the GPU may still run that unit's tail
// (StepReplay::host_carries_on). The step's compute stream is then one run of all its units' launches, the same
// number HostIssue::then gives for them composed in order; a pipeline stage, whose host Megatron-Core
// synchronises at every send and receive, pays each unit's own wait.
#include <gtest/gtest.h>

#include "tiny_moe.hpp"

namespace cs {
namespace {

using testing::tiny_moe;

struct Replayed {
  StepResult step;
  Time gpu, composed_wait, unit_waits;
};

// One GPU (or a 2-stage pipeline of two), 4 micro-batches, each launch 40 us of host: launch-bound MoE layers
// after a GPU-bound head.
Replayed replay(int pp, bool sync, Time engine_start = Time::zero()) {
  const ModelSpec m = tiny_moe(4);
  ParallelPlan p;
  p.pp = pp;
  TrainingConfig t;
  t.seq_len = 2048;
  t.micro_batch = 1;
  t.global_batch = 4;
  t.host_launch_cost = Time::us(40);
  t.moe_host_sync = sync;
  testing::FixedCostModel compute;
  EventEngine engine;
  if (engine_start > Time::zero()) {  // an engine that has run before: the step starts at its clock
    engine.schedule_in(engine_start, [] {});
    engine.run();
  }
  testing::RingFabric fabric(engine, Bandwidth{25e9}, Time::us(10));
  const UnitCosts costs(m, p, t, compute, [&](const CollectiveRequest& r) { return fabric.duration(r); }, 132);
  StepReplay replay(m, p, t, costs, fabric, engine);
  Replayed r;
  r.step = replay.run();
  HostIssue all;
  for (const PipelineUnit& u : pipeline_order(p, 0, 4, false)) {
    const UnitCost& c = u.forward ? costs.forward(0, u.chunk) : costs.backward(0, u.chunk);
    r.gpu += c.total() - c.host_wait;
    r.unit_waits += c.host_wait;
    all = all.then(c.issue);
  }
  r.composed_wait = all.wait();
  return r;
}

TEST(HostCarry, OneStagesUnitsRunAsOneRunOfLaunches) {
  for (const bool sync : {false, true}) {
    const Replayed r = replay(1, sync);
    ASSERT_GT(r.unit_waits, Time::zero());
    ASSERT_LT(r.composed_wait, r.unit_waits) << "the units must lend each other a lead for this test to test it";
    EXPECT_EQ(r.step.breakdown.host_wait, r.composed_wait) << (sync ? "synchronised" : "not synchronised");
    EXPECT_EQ(r.step.step_time - r.step.breakdown.optimizer - r.step.breakdown.dp_comm, r.gpu + r.composed_wait);
  }
}

TEST(HostCarry, TheHostStartsWithTheStepNotWithTheEnginesClock) {
  const Replayed fresh = replay(1, true), later = replay(1, true, Time::from_seconds(1.0));
  EXPECT_EQ(later.step.step_time, fresh.step.step_time);
  EXPECT_EQ(later.step.breakdown.host_wait, fresh.step.breakdown.host_wait);
}

TEST(HostCarry, APipelineStagesHostWaitsForEachUnit) {
  const Replayed r = replay(2, false);
  EXPECT_EQ(r.step.busiest.host_wait, r.unit_waits);
}

}  // namespace
}  // namespace cs
