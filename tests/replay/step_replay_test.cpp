#include "sim/replay/step_replay.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ring_fabric.hpp"
#include "tiny_gpt.hpp"

namespace cs {
namespace {

// A 2-layer GPT (h=256, 4 heads, FFN 1024, vocabulary 1000) trained data-parallel on one 8-GPU node.
struct DpFixture {
  ModelSpec model = testing::tiny_gpt();
  ParallelPlan plan;
  TrainingConfig train = testing::tiny_training();
  testing::FixedCostModel compute;
  EventEngine engine;
  testing::RingFabric fabric{engine, Bandwidth{100e9}, Time::us(10)};
  DpFixture() {
    plan.dp = 8;
    train.micro_batch = 1;
    train.global_batch = 16;  // 2 micro-batches per replica
    train.grad_bucket_bytes = 5'000'000;
  }
  /// The step, its in-unit collectives priced on the ring and its transfers replayed on `replay_fabric` (the ring
  /// where none is given).
  StepResult run(CollectiveModel* replay_fabric = nullptr) {
    const UnitCosts costs(model, plan, train, compute, [&](const CollectiveRequest& r) { return fabric.duration(r); }, 132);
    StepReplay replay(model, plan, train, costs, replay_fabric ? *replay_fabric : fabric, engine);
    return replay.run();
  }
};

// Hand calculation (FixedCostModel: GEMM 1 ms, attention 2 ms forward / 4 ms backward, any other kernel 0.1 ms):
//   layer forward  = 4 GEMMs + attention + 5 memory kernels = 4 + 2 + 0.5 = 6.5 ms
//   layer backward = 8 GEMMs + attention bwd + 5 memory     = 8 + 4 + 0.5 = 12.5 ms
//   embedding 0.1 / 0.1 ms; output layer (norm, logits GEMM, cross-entropy) 1.2 / 2.2 ms
//   micro-batch forward 2*6.5 + 0.1 + 1.2 = 14.3 ms, backward 2*12.5 + 0.1 + 2.2 = 27.3 ms
//   two micro-batches: compute ends at 2 * (14.3 + 27.3) = 83.2 ms
// Gradients: 2 layers * (4h^2 + 2*h*4h) + 2 * V*h = 2*786432 + 512000 = 2,084,864 params, fp32 = 8,339,456 B,
//   in 2 buckets of 4,169,728 B (bucket size 5 MB). Ring all-reduce over 8 GPUs at 100 GB/s, 10 us per hop:
//   2*7/8 * 4169728 B / 100 GB/s + 14 * 10 us = 72.971 us (rounded up) + 140 us = 212.971 us.
// With overlap, bucket 0 is released half-way through the last backward (69.55 ms) and finishes long before
// bucket 1 is released at 83.2 ms; the step ends after bucket 1 and the 0.1 ms optimizer:
//   83.2 + 0.212971 + 0.1 = 83.512971 ms.
TEST(StepReplay, DataParallelStepMatchesHandCalculation) {
  DpFixture f;
  const StepResult r = f.run();
  EXPECT_EQ(r.step_time, Time::ns(83'512'971));
  EXPECT_EQ(r.breakdown.compute, Time::us(83'200));
  EXPECT_EQ(r.breakdown.dp_comm, Time::ns(212'971));
  EXPECT_EQ(r.breakdown.optimizer, Time::us(100));
  EXPECT_EQ(r.breakdown.pipeline_wait, Time::zero());
}

// Without overlap both buckets are reduced back to back after the backward pass:
//   83.2 + 2 * 0.212971 + 0.1 = 83.725942 ms.
TEST(StepReplay, GradientReductionWithoutOverlapIsFullyExposed) {
  DpFixture f;
  f.train.overlap.grad_reduce = false;
  const StepResult r = f.run();
  EXPECT_EQ(r.step_time, Time::ns(83'725'942));
  EXPECT_EQ(r.breakdown.dp_comm, Time::ns(2 * 212'971));
}

// ZeRO-3: every unit first gathers its chunk's 16-bit parameters (2,084,864 x 2 B = 4,169,728 B) over the 8
// DP ranks: 7/8 * 4169728 B / 100 GB/s + 7 * 10 us = 36.486 us (rounded up) + 70 us = 106.486 us. The first
// gather cannot be prefetched; each later one is fetched while the previous unit runs (14.3 ms >> 0.1 ms).
// Gradients are reduce-scattered in the same two buckets, each taking 106.486 us, the last after the backward:
//   0.106486 + 83.2 + 0.106486 + 0.1 (optimizer) = 83.512972 ms.
TEST(StepReplay, Zero3GathersParametersBeforeEachUnit) {
  DpFixture f;
  f.plan.zero_stage = 3;
  const StepResult r = f.run();
  EXPECT_EQ(r.step_time, Time::ns(83'512'972));
  EXPECT_EQ(r.breakdown.pipeline_wait, Time::ns(106'486));
  EXPECT_EQ(r.breakdown.dp_comm, Time::ns(106'486));
}

// Single-process DataParallel: one reduce of all 8,339,456 B of gradients to GPU 0 after the backward pass,
// S/B + a = 83.395 us (rounded up) + 10 us = 93.395 us; the optimizer (0.1 ms); then GPU 0 broadcasts the
// 16-bit parameters, 4,169,728 B / 100 GB/s + 10 us = 41.698 + 10 = 51.698 us:
//   83.2 + 0.093395 + 0.1 + 0.051698 = 83.445093 ms.
TEST(StepReplay, SingleProcessDataParallelReducesToOneGpuThenBroadcasts) {
  DpFixture f;
  f.plan.single_process_dp = true;
  const StepResult r = f.run();
  EXPECT_EQ(r.step_time, Time::ns(83'445'093));
  EXPECT_EQ(r.breakdown.dp_comm, Time::ns(93'395));
  EXPECT_EQ(r.breakdown.param_gather, Time::ns(51'698));
}

// PowerSGD at ratio 0.1: each 4,169,728 B bucket costs one 0.1 ms bandwidth-bound pass (FixedCostModel) and an
// all-reduce of 416,972.8 B: 2*7/8 * 416972.8 B / 100 GB/s = 7.298 us (rounded up) + 140 us = 147.298 us.
// The last bucket is released at 83.2 ms: 83.2 + 0.1 + 0.147298 + 0.1 (optimizer) = 83.547298 ms.
TEST(StepReplay, PowerSgdShrinksTrafficAtAComputeCost) {
  DpFixture f;
  f.train.compression = GradCompression::powersgd;
  f.train.compression_ratio = 0.1;
  const StepResult r = f.run();
  EXPECT_EQ(r.step_time, Time::ns(83'547'298));
}

// Gradients reduced in bf16 (grad_reduce_in_fp32 off, as NeMo's recipes run): 2,084,864 params x 2 B =
// 4,169,728 B fit one 5 MB bucket, all-reduced after the backward pass in 212.971 us (the size of one fp32
// bucket above): 83.2 + 0.212971 + 0.1 = 83.512971 ms, where fp32 gradients took two buckets (83.725942 ms).
TEST(StepReplay, GradientsReducedInBf16SendHalfTheBytes) {
  DpFixture f;
  f.train.overlap.grad_reduce = false;
  f.train.grad_reduce_in_fp32 = false;
  const StepResult r = f.run();
  EXPECT_EQ(r.step_time, Time::ns(83'512'971));
  EXPECT_EQ(r.breakdown.dp_comm, Time::ns(212'971));
}

// ZeRO-3 gathers the working parameters in their own type. The first gather is not prefetched, so it is the
// stage's pipeline wait. fp32 training: 2,084,864 x 4 B = 8,339,456 B, 7/8 * 8339456 B / 100 GB/s + 7 * 10 us =
// 72.971 us (rounded up) + 70 us = 142.971 us. fp8 parameters: 2,084,864 B, 18.243 us + 70 us = 88.243 us.
TEST(StepReplay, Zero3GathersParametersInTheirOwnType) {
  DpFixture fp32;
  fp32.plan.zero_stage = 3;
  fp32.train.precision = DType::fp32;
  EXPECT_EQ(fp32.run().breakdown.pipeline_wait, Time::ns(142'971));

  DpFixture fp8;
  fp8.plan.zero_stage = 3;
  fp8.train.precision = DType::fp8;
  fp8.train.fp8_params = true;
  EXPECT_EQ(fp8.run().breakdown.pipeline_wait, Time::ns(88'243));
}

// A step that starts after the engine has already run (the engine's clock at 1 ms) measures its pipeline wait
// from its own start: the data-parallel step still has none.
TEST(StepReplay, PipelineWaitIsMeasuredFromTheStepStart) {
  DpFixture f;
  f.engine.schedule_in(Time::ms(1), [] {});
  f.engine.run();
  const StepResult r = f.run();
  EXPECT_EQ(r.step_time, Time::ns(83'512'971));
  EXPECT_EQ(r.breakdown.pipeline_wait, Time::zero());
}

// DataParallel's broadcast of the updated parameters is named as what it is on the timeline.
TEST(StepReplay, SingleProcessDataParallelNamesItsBroadcast) {
  struct Names final : ReplayObserver {
    std::vector<std::string> dp;
    void on_span(const Span& s) override {
      if (std::string(s.stream) == "dp comm") dp.push_back(s.name);
    }
  } names;
  DpFixture f;
  f.plan.single_process_dp = true;
  const UnitCosts costs(f.model, f.plan, f.train, f.compute,
                        [&](const CollectiveRequest& r) { return f.fabric.duration(r); }, 132);
  StepReplay replay(f.model, f.plan, f.train, costs, f.fabric, f.engine);
  replay.add_observer(names);
  (void)replay.run();
  EXPECT_NE(std::find(names.dp.begin(), names.dp.end(), "param broadcast"), names.dp.end());
  EXPECT_EQ(std::find(names.dp.begin(), names.dp.end(), "param all-gather"), names.dp.end());
}

// Model FLOPs (Megatron convention), per GPU and micro-batch, T = 128 tokens:
//   per layer forward: QKV 2*T*h*3h + attention 4*T*T*h + projection 2*T*h*h + FFN 2 * 2*T*h*4h
//                    = 50,331,648 + 16,777,216 + 16,777,216 + 134,217,728 = 218,103,808
//   logits 2*T*h*V = 65,536,000; forward total 2*218,103,808 + 65,536,000 = 501,743,616
//   forward + backward = 3x = 1,505,230,848; x 2 micro-batches x 8 GPUs = 24,083,693,568.
TEST(StepReplay, CountsModelFlopsLikeMegatron) {
  DpFixture f;
  const StepResult r = f.run();
  EXPECT_DOUBLE_EQ(r.model_flops.value(), 24'083'693'568.0);
  EXPECT_DOUBLE_EQ(r.hardware_flops.value(), r.model_flops.value());  // no recompute
}

// A collective model that delivers everything instantly, to isolate the pipeline schedule.
class InstantFabric final : public CollectiveModel {
 public:
  explicit InstantFabric(EventEngine& e) : e_(e) {}
  void start(const CollectiveRequest&, std::function<void()> done) override { e_.schedule_in(Time::zero(), std::move(done)); }
  [[nodiscard]] std::string describe() const override { return "instant"; }
 private:
  EventEngine& e_;
};

// 4 layers on 2 pipeline stages, 4 micro-batches, no data parallelism. Stage 0: layers 0-1 + embedding,
// forward 13.1 ms, backward 25.1 ms; stage 1: layers 2-3 + output layer, forward 14.2, backward 27.2 ms.
// With instant transfers, 1F1B on stage 1 runs F0 B0 F1 B1 ... back to back once F0 arrives at 13.1 ms:
// stage 1 ends its last backward at 13.1 + 4 * (14.2 + 27.2) = 178.7 ms; stage 0's last backward B3 waits
// for stage 1's B3 and ends 25.1 ms later at 203.8 ms; then the 0.1 ms optimizer: step = 203.9 ms.
TEST(StepReplay, OneFOneBPipelineMatchesHandCalculation) {
  DpFixture f;
  f.model.layers = 4;
  f.plan.dp = 1;
  f.plan.pp = 2;
  f.train.global_batch = 4;
  InstantFabric fabric(f.engine);
  const StepResult r = f.run(&fabric);
  EXPECT_EQ(r.step_time, Time::us(203'900));
  EXPECT_EQ(r.critical_stage, 0);
  // Stage 0 finishes last, but stage 1 is the bottleneck: busy 4 x 41.4 = 165.6 ms of kernels and the 0.1 ms
  // optimizer, waiting the other 38.2 ms of the step (stage 0: 152.8 ms busy).
  EXPECT_EQ(r.busiest_stage, 1);
  EXPECT_EQ(r.busiest.compute, Time::us(165'600));
  EXPECT_EQ(r.busiest.optimizer, Time::us(100));
  EXPECT_EQ(r.busiest.pipeline_wait, Time::us(38'200));
}

// A collective model that delivers every request after a fixed delay.
class DelayFabric final : public CollectiveModel {
 public:
  DelayFabric(EventEngine& e, Time delay) : e_(e), delay_(delay) {}
  void start(const CollectiveRequest&, std::function<void()> done) override { e_.schedule_in(delay_, std::move(done)); }
  [[nodiscard]] std::string describe() const override { return "fixed delay"; }
 private:
  EventEngine& e_;
  Time delay_;
};

// The 1F1B pipeline above with transfers of 1 ms. Megatron's 1F1B waits for every send it posts, so a stage
// starts its next unit only once its send has arrived (Overlap::pp_comm applies to interleaved schedules only):
//   S0: F0 0-13.1, send to 14.1; F1 14.1-27.2, send to 28.2.  S1: F0 14.1-28.3; B0 28.3-55.5, send to 56.5.
//   S0: B0 56.5-81.6; F2 81.6-94.7, send to 95.7.             S1: F1 56.5-70.7; B1 70.7-97.9, send to 98.9.
//   S0: B1 98.9-124.0; F3 124.0-137.1, send to 138.1.         S1: F2 98.9-113.1; B2 113.1-140.3, send to 141.3.
//   S0: B2 141.3-166.4.                                        S1: F3 141.3-155.5; B3 155.5-182.7, send to 183.7.
//   S0: B3 183.7-208.8; optimizer 0.1 ms: step = 208.9 ms (203.9 ms with instant transfers).
TEST(StepReplay, OneFOneBStageWaitsForItsSends) {
  DpFixture f;
  f.model.layers = 4;
  f.plan.dp = 1;
  f.plan.pp = 2;
  f.train.global_batch = 4;
  DelayFabric fabric(f.engine, Time::ms(1));
  EXPECT_EQ(f.run(&fabric).step_time, Time::us(208'900));
}

// An interleaved pipeline (2 stages x 2 chunks of one layer, 8 micro-batches) with 1 ms transfers: with its
// sends overlapped (Megatron-Core overlap_p2p_comm, the default) a stage runs on while they travel; without
// (Megatron-LM's batched sends and device synchronise) each unit's send holds its stage, so the step grows, by
// at most one transfer per unit of the busiest stage (32 units).
TEST(StepReplay, InterleavedSendsOverlapUnlessTheFrameworkBlocks) {
  const auto step = [](bool overlap) {
    DpFixture f;
    f.model.layers = 4;
    f.plan.dp = 1;
    f.plan.pp = 2;
    f.plan.virtual_stages = 2;
    f.plan.schedule = PipelineSchedule::interleaved;
    f.train.global_batch = 8;
    f.train.overlap.pp_comm = overlap;
    DelayFabric fabric(f.engine, Time::ms(1));
    return f.run(&fabric).step_time;
  };
  const Time overlapped = step(true), blocking = step(false);
  EXPECT_GT(blocking, overlapped);
  EXPECT_LE(blocking - overlapped, Time::ms(32));
}

// The same 1F1B pipeline with two data-parallel replicas: a stage whose stream still waits for its last send
// has not finished, so its DP reduction and optimizer come after that send, and no part of the breakdown goes
// negative (a gradient bucket done before the send used to start the optimizer early).
TEST(StepReplay, AStageWaitingForItsLastSendHasNotFinished) {
  DpFixture f;
  f.model.layers = 4;
  f.plan.dp = 2;
  f.plan.pp = 2;
  f.train.global_batch = 8;  // 4 micro-batches per replica
  f.train.grad_bucket_bytes = 1'000'000'000;  // one bucket per stage
  DelayFabric fabric(f.engine, Time::ms(1));
  const StepResult r = f.run(&fabric);
  // Stage 0's last backward ends at 208.8 ms (above); its bucket, released at its end, takes 1 ms, then the
  // optimizer 0.1 ms.
  EXPECT_EQ(r.step_time, Time::us(209'900));
  for (const StepBreakdown& b : {r.breakdown, r.busiest}) {
    EXPECT_GE(b.pipeline_wait, Time::zero());
    EXPECT_GE(b.dp_comm, Time::zero());
  }
}

}  // namespace
}  // namespace cs
