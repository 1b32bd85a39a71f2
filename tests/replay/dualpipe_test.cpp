// DualPipe (DeepSeek-V3, arXiv 2412.19437 Sec. 3.2.1): the per-rank order of deepseek-ai/DualPipe's eight steps
// (its weight-gradient slots folded into the backward), the placement of the two model pieces per rank, and a
// replayed step against 1F1B on the same model and GPUs.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "tiny_moe.hpp"
#include "sim/replay/step_replay.hpp"
#include "sim/workload/memory_model.hpp"
#include "sim/workload/pipeline_schedule.hpp"

namespace cs {
namespace {

ParallelPlan dualpipe(int pp) {
  ParallelPlan p;
  p.pp = pp;
  p.schedule = PipelineSchedule::dualpipe;
  return p;
}

// Every rank runs each of its two chunks' micro-batches (half of them each) once forward and once backward,
// forwards and backwards of a chunk in micro-batch order, a backward never before its own forward, and pairs
// (forward of one chunk with the backward of the other) only in the steady state.
TEST(DualPipe, EveryRankRunsEachMicroBatchOfBothDirectionsOnce) {
  for (const int pp : {2, 4, 8}) {
    const ParallelPlan p = dualpipe(pp);
    const int mbs = 4 * pp;  // 2 pp per direction
    for (int s = 0; s < pp; ++s) {
      const auto order = pipeline_order(p, s, mbs, true);
      ASSERT_EQ(order.size(), static_cast<std::size_t>(2 * mbs)) << "pp " << pp << " rank " << s;
      int next_f[2] = {0, 0}, next_b[2] = {0, 0};
      for (std::size_t i = 0; i < order.size(); ++i) {
        const PipelineUnit& u = order[i];
        ASSERT_TRUE(u.chunk == 0 || u.chunk == 1);
        int& next = u.forward ? next_f[u.chunk] : next_b[u.chunk];
        EXPECT_EQ(u.micro_batch, next) << "pp " << pp << " rank " << s << " unit " << i;
        ++next;
        if (!u.forward) {
          EXPECT_LE(next_b[u.chunk], next_f[u.chunk]);
        }
        if (u.paired) {
          ASSERT_LT(i + 1, order.size());
          EXPECT_FALSE(order[i + 1].forward);
          EXPECT_NE(order[i + 1].chunk, u.chunk);  // the other direction
        }
      }
      for (int c = 0; c < 2; ++c) {
        EXPECT_EQ(next_f[c], mbs / 2);
        EXPECT_EQ(next_b[c], mbs / 2);
      }
      // Without the merge the same units run in the same order, none paired.
      const auto plain = pipeline_order(p, s, mbs, false);
      ASSERT_EQ(plain.size(), order.size());
      for (std::size_t i = 0; i < order.size(); ++i) {
        EXPECT_FALSE(plain[i].paired);
        EXPECT_EQ(plain[i].forward, order[i].forward);
        EXPECT_EQ(plain[i].chunk, order[i].chunk);
      }
    }
  }
}

// DualPipe's step counts on rank 0 of 8 (half rank 0): step 1 has 6 forwards of its own direction, step 2 one
// forward of each, step 3 three (B, F) of the other direction, then the main step. With 32 micro-batches (16 per
// direction) the main step pairs 16 - 8 + 0 + 1 = 9 times, twice each: 18 pairs, and step 5 three more.
TEST(DualPipe, StepCountsFollowTheReferenceSchedule) {
  const auto order = pipeline_order(dualpipe(8), 0, 32, true);
  for (int i = 0; i < 7; ++i) {
    EXPECT_TRUE(order[static_cast<std::size_t>(i)].forward);
    EXPECT_EQ(order[static_cast<std::size_t>(i)].chunk, 0) << i;
  }
  EXPECT_EQ(order[7].chunk, 1);  // step 2's forward of the other direction
  EXPECT_TRUE(order[7].forward);
  EXPECT_FALSE(order[8].forward);  // step 3 opens with a backward of the other direction
  EXPECT_EQ(order[8].chunk, 1);
  int pairs = 0;
  for (const auto& u : order) pairs += u.paired ? 1 : 0;
  EXPECT_EQ(pairs, 18 + 3);
  // A middle rank (3 of 8) does not overlap its first main-step couple.
  const auto middle = pipeline_order(dualpipe(8), 3, 32, true);
  int middle_pairs = 0;
  for (const auto& u : middle) middle_pairs += u.paired ? 1 : 0;
  EXPECT_EQ(middle_pairs, 2 * (16 - 8 + 3 + 1) - 1 + 0);
}

// Rank s holds piece s for micro-batches entering at rank 0 and piece pp-1-s for those entering at rank pp-1;
// each direction crosses the pieces in order.
TEST(DualPipe, PiecesAndPlacesOfBothDirections) {
  const ParallelPlan p = dualpipe(4);
  EXPECT_EQ(p.chunks(), 2);
  EXPECT_EQ(p.pieces(), 4);
  EXPECT_EQ(p.piece(0, 0), 0);
  EXPECT_EQ(p.piece(0, 1), 3);
  EXPECT_EQ(p.piece(3, 1), 0);
  for (int piece = 0; piece < 4; ++piece) {
    EXPECT_EQ(p.place(piece, 0), (std::pair{piece, 0}));
    EXPECT_EQ(p.place(piece, 1), (std::pair{3 - piece, 1}));
    for (int c = 0; c < 2; ++c) {
      const auto [stage, chunk] = p.place(piece, c);
      EXPECT_EQ(p.piece(stage, chunk), piece);
    }
  }
}

// An 8-layer MoE model on PP 4 x DP 4 x EP 4 with 16 micro-batches: DualPipe runs the same kernels as 1F1B
// (FLOPs equal over the step), waits less in the pipeline, and with its couples overlapped (here without SM
// contention) hides part of the all-to-all, so its step is the shortest of the three. Memory: each rank holds two pieces'
// weights, and pp + 1 = 5 micro-batches of one piece's activations against 1F1B's 4 on rank 0.
TEST(DualPipe, ReplayedStepWaitsLessThanOneFOneB) {
  const ModelSpec m = testing::tiny_moe(8);
  ParallelPlan one_f;
  one_f.pp = 4;
  one_f.dp = 4;
  one_f.ep = 4;
  ParallelPlan dual = one_f;
  dual.schedule = PipelineSchedule::dualpipe;
  TrainingConfig t;
  t.seq_len = 2048;
  t.global_batch = 64;  // 16 micro-batches per pipeline, 8 per direction
  const StepResult a = testing::replay_on_ring(m, one_f, t);
  const StepResult b = testing::replay_on_ring(m, dual, t);
  t.overlap.ep_comm = true;
  t.overlap.ep_comm_sms = 0;  // no contention: the couples' overlap alone (contention: merged_units_test)
  const StepResult c = testing::replay_on_ring(m, dual, t);
  EXPECT_EQ(a.model_flops.value(), b.model_flops.value());
  EXPECT_EQ(b.model_flops.value(), c.model_flops.value());
  EXPECT_LT(b.step_time, a.step_time);
  EXPECT_LT(b.breakdown.pipeline_wait, a.breakdown.pipeline_wait);
  EXPECT_LT(c.step_time, b.step_time);
  EXPECT_LT(c.busiest.ep_comm, b.busiest.ep_comm);

  t.overlap.ep_comm = false;
  const MemoryBreakdown ma = peak_memory_per_gpu(m, one_f, t), mb = peak_memory_per_gpu(m, dual, t);
  // 8 layers over 4 pieces: 1F1B's rank 0 holds 2 layers and the embedding, its rank 3 2 layers and the output
  // head; DualPipe's rank 0 holds both pieces.
  EXPECT_DOUBLE_EQ(params_per_gpu(m, dual, 0), params_per_gpu(m, one_f, 0) + params_per_gpu(m, one_f, 3));
  EXPECT_DOUBLE_EQ(params_per_gpu(m, dual, 3), params_per_gpu(m, dual, 0));
  EXPECT_GT(mb.weights.value(), ma.weights.value());
  EXPECT_NEAR(mb.activations.value() / ma.activations.value(), 5.0 / 4.0, 0.2);
}

TEST(DualPipe, ItsConditionsAreChecked) {
  const ModelSpec m = testing::tiny_moe(8);
  TrainingConfig t;
  t.seq_len = 2048;
  ParallelPlan p = dualpipe(4);
  p.dp = 4;
  t.global_batch = 24;  // 6 micro-batches: fewer than 2 * pp
  EXPECT_THROW(check_plan({"x.yaml", 1, 1}, m, p, t, 16, 8), InputError);
  t.global_batch = 32;
  EXPECT_NO_THROW(check_plan({"x.yaml", 1, 1}, m, p, t, 16, 8));
  p.pp = 2;
  p.dp = 8;
  EXPECT_NO_THROW(check_plan({"x.yaml", 1, 1}, m, p, t, 16, 8));
  ParallelPlan odd = dualpipe(1);
  odd.dp = 16;
  EXPECT_THROW(check_plan({"x.yaml", 1, 1}, m, odd, t, 16, 8), InputError);
  // EP overlap is allowed under DualPipe with a pipeline.
  p.ep = 8;
  t.overlap.ep_comm = true;
  EXPECT_NO_THROW(check_plan({"x.yaml", 1, 1}, m, p, t, 16, 8));
}

}  // namespace
}  // namespace cs
