// Merged forward-backward units (EP all-to-all overlap): two chains of compute and all-to-all phases on one
// compute and one communication stream, checked by hand; the pipeline order that pairs them; and a replayed MoE
// step that hides its all-to-all without losing or adding work.
#include "sim/replay/merged_units.hpp"

#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "tiny_moe.hpp"
#include "sim/replay/step_replay.hpp"
#include "sim/workload/framework_profile.hpp"
#include "sim/workload/memory_model.hpp"
#include "sim/workload/pipeline_schedule.hpp"

namespace cs {
namespace {

Phase c(double ms) { return {Time::ms(ms), false}; }
Phase e(double ms) { return {Time::ms(ms), true}; }

using testing::tiny_moe;

/// PP 2 x VPP 2 (Megatron-Core merges only with interleaving when there is a pipeline), DP 8, EP 8: 16 GPUs.
ParallelPlan interleaved_ep8() {
  ParallelPlan p;
  p.pp = 2;
  p.virtual_stages = 2;
  p.schedule = PipelineSchedule::interleaved;
  p.dp = 8;
  p.ep = 8;
  return p;
}

/// 2,048-token sequences, 64 per step: 8 micro-batches per pipeline at DP 8.
TrainingConfig tiny_moe_step() {
  TrainingConfig t;
  t.seq_len = 2048;
  t.global_batch = 64;
  t.host_costs = find_framework_profile("pytorch-eager").costs;  // the measuring hosts' (where a test launches eagerly)
  return t;
}

/// One step of the tiny MoE model, with or without EP overlap.
StepResult replay_step(const ModelSpec& m, const ParallelPlan& p, TrainingConfig t, bool overlap) {
  t.overlap.ep_comm = overlap;
  return testing::replay_on_ring(m, p, t);
}

// F = compute 2, all-to-all 3, compute 1; B = compute 1, all-to-all 2, compute 2 (ms). Compute stream: F 0-2,
// B 2-3, (idle: both chains are at an all-to-all), F 5-6, B 7-9. Communication stream: F 2-5, B 5-7. 9 ms
// against 11 ms one after the other.
TEST(MergedUnits, TwoChainsOnTwoStreamsByHand) {
  const std::vector<Phase> f{c(2), e(3), c(1)}, b{c(1), e(2), c(2)};
  EXPECT_EQ(merged_time(f, b, 0.0), Time::ms(9));
  // Compute at half speed beside an all-to-all: B's 1 ms runs 2-4 beside F's 3-ms all-to-all, F's last 1 ms runs
  // 5-7 beside B's all-to-all, B's last 2 ms 7-9 alone: the slowdown fills idle time and the total stays 9 ms.
  EXPECT_EQ(merged_time(f, b, 1.0), Time::ms(9));
}

TEST(MergedUnits, ContentionSlowsOnlyTheOverlappedCompute) {
  // 4 ms of compute beside a 3 ms all-to-all, compute 1.5x slower meanwhile: 2 ms of work done by 3 ms, the
  // other 2 ms alone: 5 ms.
  EXPECT_EQ(merged_time({c(4)}, {e(3)}, 0.5), Time::ms(5));
  // Without all-to-alls the streams cannot overlap anything: the sum.
  EXPECT_EQ(merged_time({c(2), c(3)}, {c(4)}, 0.5), Time::ms(9));
  // Adjacent phases of one stream join; empty phases vanish.
  std::vector<Phase> joined;
  append_phase(joined, c(1));
  append_phase(joined, c(2));
  append_phase(joined, e(0));
  append_phase(joined, e(1));
  ASSERT_EQ(joined.size(), 2u);
  EXPECT_EQ(joined[0].time, Time::ms(3));
  EXPECT_TRUE(joined[1].ep);
}

// The merged schedule runs one more forward in the warm-up, then pairs every steady-state forward with the
// backward after it; the pair is never one micro-batch's forward and backward.
TEST(MergedUnits, PipelineOrderPairsDifferentMicroBatches) {
  for (const int v : {1, 2}) {
    ParallelPlan p;
    p.pp = 4;
    p.virtual_stages = v;
    p.schedule = v > 1 ? PipelineSchedule::interleaved : PipelineSchedule::one_f_one_b;
    for (int s = 0; s < p.pp; ++s) {
      const auto plain = pipeline_order(p, s, 8);
      const auto merged = pipeline_order(p, s, 8, true);
      ASSERT_EQ(plain.size(), merged.size());
      // Plain 1F1B: w warm-up forwards, then the first steady-state forward, so w + 1 lead. Merged: w + 1
      // warm-up forwards before the first paired one.
      int plain_lead = 0, merged_warmup = 0, pairs = 0;
      while (plain[static_cast<std::size_t>(plain_lead)].forward) ++plain_lead;
      while (!merged[static_cast<std::size_t>(merged_warmup)].paired) ++merged_warmup;
      EXPECT_EQ(merged_warmup, plain_lead) << "v " << v << " stage " << s;
      for (std::size_t i = 0; i < merged.size(); ++i) {
        if (!merged[i].paired) continue;
        ++pairs;
        ASSERT_TRUE(merged[i].forward);
        ASSERT_LT(i + 1, merged.size());
        EXPECT_FALSE(merged[i + 1].forward);
        EXPECT_NE(merged[i].micro_batch, merged[i + 1].micro_batch);
      }
      EXPECT_EQ(pairs, 8 * v - merged_warmup);
    }
  }
}

// A 4-layer MoE model (8 experts, top-2) on 16 GPUs, PP 2 x VPP 2 x EP 8 over a ring fabric: with the all-to-alls
// overlapped, the step is shorter, the same kernels run (compute and FLOPs unchanged), less all-to-all time is
// exposed, the busiest stage can go no faster than its compute stream, and one more micro-batch's activations
// are held.
TEST(MergedUnits, ReplayedMoeStepHidesItsAllToAll) {
  const ModelSpec m = tiny_moe(4);
  const ParallelPlan p = interleaved_ep8();
  TrainingConfig t = tiny_moe_step();
  const StepResult plain = replay_step(m, p, t, false), merged = replay_step(m, p, t, true);
  ASSERT_GT(plain.busiest.ep_comm, Time::ms(1));
  EXPECT_LT(merged.step_time, plain.step_time);
  EXPECT_LT(merged.busiest.ep_comm, plain.busiest.ep_comm);
  EXPECT_EQ(merged.busiest.compute, plain.busiest.compute);
  EXPECT_EQ(merged.model_flops.value(), plain.model_flops.value());
  EXPECT_GE(merged.step_time, merged.busiest.compute + merged.busiest.tp_comm);
  t.overlap.ep_comm = false;
  const double plain_act = peak_memory_per_gpu(m, p, t).activations.value();
  t.overlap.ep_comm = true;
  const double merged_act = peak_memory_per_gpu(m, p, t).activations.value();
  // Stage 0 of PP 2 x VPP 2 holds 2 x (1 + 1/4) = 2.5 micro-batches' worth, now 3.5.
  EXPECT_NEAR(merged_act / plain_act, 3.5 / 2.5, 1e-9);
}

// Without a pipeline and with ZeRO-3, both units of the next merged pair have their parameters prefetched under
// the running pair: the overlap still shortens the step and adds no wait for parameters.
TEST(MergedUnits, Zero3PrefetchesBothUnitsOfTheNextPair) {
  const ModelSpec m = tiny_moe(4);
  ParallelPlan p;
  p.dp = 16;
  p.ep = 8;
  p.zero_stage = 3;
  TrainingConfig t;
  t.seq_len = 2048;
  t.global_batch = 128;  // 8 micro-batches per replica
  const StepResult plain = replay_step(m, p, t, false), merged = replay_step(m, p, t, true);
  EXPECT_LT(merged.step_time, plain.step_time);
  EXPECT_LE(merged.breakdown.pipeline_wait, plain.breakdown.pipeline_wait);
}

// A merged pair can end no sooner than the host has issued both its units: every launch of the forward and the
// backward, plus Megatron-Core's schedule-node cost per node (the embedding's chunk: 1 pre-process node and 5 for
// its MoE layer, forward and backward). With launches far slower than the kernels the host sets the pair's time;
// with cheap launches the pair keeps the units' own waits; with no eager host (CUDA graphs) none.
TEST(MergedUnits, HostThatIssuesBothUnitsBoundsAMergedPair) {
  const ModelSpec m = tiny_moe(4);
  const ParallelPlan p = interleaved_ep8();
  TrainingConfig t = tiny_moe_step();
  t.overlap.ep_comm = true;
  testing::FixedCostModel compute;
  EventEngine engine;
  testing::RingFabric fabric(engine, Bandwidth{25e9}, Time::us(10));
  const auto estimate = [&](const CollectiveRequest& r) { return fabric.duration(r); };
  auto costs_with = [&](Time launch) {
    TrainingConfig x = t;
    x.host_launch_cost = launch;
    return UnitCosts(m, p, x, compute, estimate, 132);
  };

  const UnitCosts slow = costs_with(Time::ms(5));
  const UnitCost& f = slow.forward(0, 0);
  const UnitCost& b = slow.backward(0, 0);
  EXPECT_EQ(f.schedule_nodes, 6);
  EXPECT_EQ(b.schedule_nodes, 6);
  ASSERT_GT(f.host, Time::zero());
  const Time per_node =
      f.issue.synced() || b.issue.synced() ? t.host_costs.schedule_node_host_synced : t.host_costs.schedule_node_host;
  const Time gpu = slow.merged(0, 0, 0);
  const Time host = f.host + b.host + per_node * 12;
  ASSERT_GT(host - gpu, f.host_wait + b.host_wait);
  EXPECT_EQ(slow.merged_host_wait(0, 0, 0), host - gpu);
  EXPECT_EQ(slow.merged_pair_host_wait(f, b, gpu), host - gpu);

  const UnitCosts fast = costs_with(Time::ns(1));
  const UnitCost& ff = fast.forward(0, 0);
  const UnitCost& fb = fast.backward(0, 0);
  EXPECT_EQ(fast.merged_host_wait(0, 0, 0), ff.host_wait + fb.host_wait);

  const UnitCosts graphs = costs_with(Time::zero());
  EXPECT_EQ(graphs.merged_host_wait(0, 0, 0), Time::zero());

  // Replayed, the host-bound pairs show as waiting for the host, not as exposed all-to-all.
  TrainingConfig slow_t = t;
  slow_t.host_launch_cost = Time::ms(5);
  const StepResult r = testing::replay_on_ring(m, p, slow_t);
  EXPECT_GE(r.busiest.host_wait, slow.merged_host_wait(0, 0, 0));
  EXPECT_GE(r.step_time, r.busiest.compute + r.busiest.host_wait);
}

// Megatron-Core's conditions for the overlap, checked with the plan: a pipeline needs interleaving, no full
// recompute, and expert parallelism.
TEST(MergedUnits, MegatronCoresConditionsAreChecked) {
  const ModelSpec m = tiny_moe(4);
  ParallelPlan p;
  p.pp = 2;
  p.dp = 8;
  p.ep = 8;
  TrainingConfig t = tiny_moe_step();
  t.overlap.ep_comm = true;
  auto message = [&] {
    try {
      check_plan(SourceLocation{"s.yaml", 3, 1}, m, p, t, 16, 8);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message().find("interleaved"), std::string::npos) << message();
  p.virtual_stages = 2;
  p.schedule = PipelineSchedule::interleaved;
  EXPECT_EQ(message(), "");
  t.recompute = Recompute::full;
  EXPECT_NE(message().find("full recompute"), std::string::npos) << message();
  t.recompute = Recompute::none;
  p.ep = 1;
  EXPECT_NE(message().find("expert parallelism"), std::string::npos) << message();
}

// The host's speed scales every host cost, and the framework's work per call an operator's launch: a node whose
// host runs the yardstick in 13.48 us (a DGX H100's Xeon) is 13.48 / 27.1 = 0.497x the calibration hosts; with
// Megatron-Core on Transformer Engine (megatron-core-te-2025.yaml's host_factor per operator) an operator's launch costs that
// factor times 0.497 the calibrated one, while plain PyTorch operators, the native loops' further launches and the
// merged schedule's nodes (Megatron-Core's Python) cost 0.497x theirs. An unknown host is priced as the
// calibration hosts.
TEST(MergedUnits, HostCostsScaleWithTheNodesHostAndTheFramework) {
  const ModelSpec m = tiny_moe(4);
  const ParallelPlan p = interleaved_ep8();
  TrainingConfig t = tiny_moe_step();
  t.overlap.ep_comm = true;
  t.host_launch_cost = Time::ms(5);
  testing::FixedCostModel compute;
  EventEngine engine;
  testing::RingFabric fabric(engine, Bandwidth{25e9}, Time::us(10));
  const auto estimate = [&](const CollectiveRequest& r) { return fabric.duration(r); };
  const UnitCosts calibrated(m, p, t, compute, estimate, 132);
  EXPECT_EQ(calibrated.host_scale(), 1.0);
  const double te_factor = find_framework_profile("megatron-core-te-2025").host_factor;
  TrainingConfig te = t;
  te.framework_host_factor = te_factor;
  const UnitCosts dgx(m, p, te, compute, estimate, 132, 8, Time::us(13.48));
  EXPECT_NEAR(dgx.host_speed(), 13.48 / 27.1, 1e-12);
  EXPECT_NEAR(dgx.host_scale(), te_factor * 13.48 / 27.1, 1e-12);
  const UnitCosts unknown(m, p, te, compute, estimate, 132, 8);  // unknown host: the calibration hosts'
  EXPECT_EQ(unknown.host_speed(), 1.0);
  EXPECT_EQ(unknown.host_scale(), te_factor);
  // The framework's factor prices an operator's launch; plain PyTorch operators and the native loops' further
  // launches (Transformer Engine's, measured as such) do not take it; the host's speed scales every launch.
  const LaunchCosts lc = unknown.launch_costs();
  EXPECT_EQ(lc.op, Time::from_seconds(5e-3 * te_factor));
  EXPECT_EQ(lc.torch_op, Time::ms(5));
  EXPECT_NEAR(lc.native_gemm.seconds(), t.host_costs.grouped_gemm_launch.seconds(), 1e-12);  // the cap
  EXPECT_EQ(lc.native_kernel, t.host_costs.native_kernel_launch);
  EXPECT_NEAR(dgx.forward(0, 0).host.seconds(), unknown.forward(0, 0).host.seconds() * dgx.host_speed(), 1e-8);
  const Time node = t.host_costs.schedule_node_host;
  EXPECT_EQ(dgx.host_scaled(node), Time::from_seconds(node.seconds() * dgx.host_speed()));
}

}  // namespace
}  // namespace cs
