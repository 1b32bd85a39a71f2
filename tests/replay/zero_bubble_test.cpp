// Zero-bubble, V-shaped and PipeDream schedules (issue 45) on pp = 4 with 8 micro-batches, every unit at a fixed
// time (UnitCosts' FixedUnitTimes, free transfers): each rank's whole timeline is asserted, drawn one character pair
// per millisecond (F, B, W and the micro-batch; lower case for a V's second piece; ".." idle), so that every start
// can be checked by hand against the dependencies: a forward after the previous piece's forward of the same
// micro-batch, a B after the next piece's B, a W after its own B. The step times are the papers' formulas where
// they have one: 1F1B m(F+B+W) + (p-1)(F+B+W), ZB-H1 m(F+B+W) + (p-1)(F+B-W), ZB-H2 m(F+B+W) + (p-1)(F+B-2W)
// when F+B >= 2W (Qi et al., ICLR 2024, Table 1).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "fixed_cost_model.hpp"
#include "tiny_gpt.hpp"
#include "sim/replay/step_replay.hpp"
#include "sim/workload/memory_model.hpp"
#include "sim/workload/pipeline_schedule.hpp"

namespace cs {
namespace {

/// Transfers that take no time: the schedules alone.
class InstantPipeFabric final : public CollectiveModel {
 public:
  explicit InstantPipeFabric(EventEngine& e) : e_(e) {}
  void start(const CollectiveRequest&, std::function<void()> done) override { e_.schedule_in(Time::zero(), std::move(done)); }
  [[nodiscard]] std::string describe() const override { return "instant"; }

 private:
  EventEngine& e_;
};

/// Draws each stage's compute spans, one character pair per millisecond.
class TimelineDrawing final : public ReplayObserver {
 public:
  explicit TimelineDrawing(int pp) : rows_(static_cast<std::size_t>(pp)) {}
  void on_span(const Span& s) override {
    if (s.stream != "compute" || s.name == "optimizer step") return;
    // "F mb3", "W mb0 chunk1"
    const char kind = s.name[0];
    const std::size_t mb_at = s.name.find("mb") + 2;
    const int mb = std::stoi(s.name.substr(mb_at));
    const bool second = s.name.find("chunk1") != std::string::npos;
    std::string label{second ? static_cast<char>(kind - 'A' + 'a') : kind, static_cast<char>('0' + mb % 10)};
    std::string& row = rows_[static_cast<std::size_t>(s.stage)];
    const auto from = static_cast<std::size_t>(s.start.count_ns() / 1'000'000), to = static_cast<std::size_t>(s.end.count_ns() / 1'000'000);
    if (row.size() < 2 * to) row.resize(2 * to, '.');
    for (std::size_t t = from; t < to; ++t) row.replace(2 * t, 2, label);
  }
  [[nodiscard]] std::string text() const {
    std::string out;
    for (const std::string& r : rows_) out += r + "\n";
    return out;
  }

 private:
  std::vector<std::string> rows_;
};

struct FixedReplay {
  StepResult step;
  std::string timeline;
};

ParallelPlan zb_plan(PipelineSchedule s, int pp = 4) {
  ParallelPlan p;
  p.pp = pp;
  p.schedule = s;
  return p;
}

/// One step of `m` micro-batches on pp = 4 with every F, B and W at the given milliseconds (a whole backward B + W).
FixedReplay replay_fixed(PipelineSchedule s, int f_ms, int b_ms, int w_ms, int m = 8, int optimizer_us = 0) {
  ModelSpec model = testing::tiny_gpt();
  model.layers = 8;  // 8 pieces under a V
  const ParallelPlan p = zb_plan(s);
  TrainingConfig t = testing::tiny_training();
  t.global_batch = m;
  testing::FixedCostModel compute;
  const UnitCosts costs(p, t, compute, FixedUnitTimes{Time::ms(f_ms), Time::ms(b_ms), Time::ms(w_ms), Time::us(optimizer_us)});
  EventEngine engine;
  InstantPipeFabric fabric(engine);
  StepReplay replay(model, p, t, costs, fabric, engine);
  TimelineDrawing drawing(p.pp);
  replay.add_observer(drawing);
  FixedReplay r{replay.run(), ""};
  r.timeline = drawing.text();
  return r;
}

/// The most chunk activations each rank holds at once under its order (held_activations_peak, one per chunk).
std::vector<double> rank_peaks(PipelineSchedule s, int m = 8) {
  const ParallelPlan p = zb_plan(s);
  std::vector<double> out;
  for (int r = 0; r < p.pp; ++r) {
    out.push_back(held_activations_peak(pipeline_order(p, r, m), std::vector<double>(static_cast<std::size_t>(p.chunks()), 1.0)));
  }
  return out;
}

// 1F1B for reference: 8 x 3 + 3 x 3 = 33 ms; rank r holds 4 - r micro-batches at its peak.
TEST(ZeroBubble, OneFOneBReference) {
  const FixedReplay r = replay_fixed(PipelineSchedule::one_f_one_b, 1, 1, 1);
  EXPECT_EQ(r.step.step_time, Time::ms(33));
  EXPECT_EQ(r.step.busiest.pipeline_wait, Time::ms(9));
  EXPECT_EQ(rank_peaks(PipelineSchedule::one_f_one_b), (std::vector<double>{4, 3, 2, 1}));
}

// ZB-H1, F = B = W = 1 ms: 8 x 3 + 3 x (1 + 1 - 1) = 27 ms, a third of 1F1B's 9 ms bubble. Rank 3 defers three
// Ws to its drain, rank 0 none; every rank holds 4 micro-batches at most (1F1B's peak, on its rank 0). Rank 0
// waits 3 ms for B0 (its F3 ends at 4 ms, B0 comes down from rank 3's B at 4-5 ms through ranks 2 and 1 at 7 ms),
// and from then on each B arrives as its F, W pair ends: 4 + 3 + 20 = 27 ms.
TEST(ZeroBubble, ZbH1EqualTimes) {
  const FixedReplay r = replay_fixed(PipelineSchedule::zb_h1, 1, 1, 1);
  EXPECT_EQ(r.timeline,
            "F0F1F2F3......B0W0F4B1W1F5B2W2F6B3W3F7B4W4B5W5B6W6B7W7\n"
            "..F0F1F2....B0F3B1W0F4B2W1F5B3W2F6B4W3F7B5W4B6W5B7W6W7\n"
            "....F0F1..B0F2B1F3B2W0F4B3W1F5B4W2F6B5W3F7B6W4B7W5W6W7\n"
            "......F0B0F1B1F2B2F3B3W0F4B4W1F5B5W2F6B6W3F7B7W4W5W6W7\n")
      << r.timeline;
  EXPECT_EQ(r.step.step_time, Time::ms(27));
  EXPECT_EQ(r.step.busiest.pipeline_wait, Time::ms(3));
  EXPECT_EQ(rank_peaks(PipelineSchedule::zb_h1), (std::vector<double>{4, 4, 4, 4}));
}

// ZB-H1 with a heavier input gradient, F = 1, B = 2, W = 1 ms: 8 x 4 + 3 x (1 + 2 - 1) = 38 ms (1F1B: 44).
TEST(ZeroBubble, ZbH1UnequalTimes) {
  const FixedReplay r = replay_fixed(PipelineSchedule::zb_h1, 1, 2, 1);
  EXPECT_EQ(r.step.step_time, Time::ms(38));
  EXPECT_EQ(replay_fixed(PipelineSchedule::one_f_one_b, 1, 2, 1).step.step_time, Time::ms(44));
  EXPECT_EQ(r.step.busiest.pipeline_wait, Time::ms(6));
}

// ZB-H2, F = B = W = 1 ms: rank 0 warms up with 7 forwards, the first B reaching it at 2p - 1 = 7 ms, and every rank
// then runs without a gap: each rank's own span is 8 x 3 = 24 ms (the steps overlap by the post-update validation:
// rank 3 starts 3 ms after rank 0 and ends 3 ms after it). At most 2p - 1 = 7 micro-batches on every rank.
TEST(ZeroBubble, ZbH2EqualTimes) {
  const FixedReplay r = replay_fixed(PipelineSchedule::zb_h2, 1, 1, 1);
  EXPECT_EQ(r.step.step_time, Time::ms(24)) << r.timeline;
  EXPECT_EQ(r.step.breakdown.pipeline_wait, Time::zero());
  EXPECT_EQ(rank_peaks(PipelineSchedule::zb_h2), (std::vector<double>{7, 7, 7, 7}));
}

// ZB-H2, F = 1, B = 2, W = 1 ms: the bubble is (p-1)(F + B - 2W) = 3 ms: 32 + 3 = 35 ms.
TEST(ZeroBubble, ZbH2UnequalTimes) {
  const FixedReplay r = replay_fixed(PipelineSchedule::zb_h2, 1, 2, 1);
  EXPECT_EQ(r.step.step_time, Time::ms(35)) << r.timeline;
  EXPECT_EQ(r.step.busiest.pipeline_wait, Time::ms(3));
}

// ZB-V, each piece's F, B and W at 1 ms (a rank runs 2 x 8 of each: 48 ms of work). Micro-batch 0 goes down the
// ranks with its first pieces (F0 at 0..3 ms) and back up with its second (f0 at 4..7), so rank 0 holds the loss:
// its first b0 runs at 8 ms, and the V's fill costs each rank 3 ms over its 48 (1F1B on whole stages of 2 ms
// units: 8 x 6 + 3 x 6 = 66). Every rank holds at most 2p = 8 chunk activations, 1F1B's 4 whole stages.
TEST(ZeroBubble, ZbVEqualTimes) {
  const FixedReplay r = replay_fixed(PipelineSchedule::zb_v, 1, 1, 1);
  EXPECT_EQ(r.step.step_time, Time::ms(51)) << r.timeline;
  EXPECT_EQ(r.step.busiest.pipeline_wait, Time::ms(3));
  EXPECT_EQ(rank_peaks(PipelineSchedule::zb_v), (std::vector<double>{8, 8, 8, 8}));
  const FixedReplay u = replay_fixed(PipelineSchedule::zb_v, 1, 2, 1);
  EXPECT_EQ(u.step.step_time, Time::ms(74)) << u.timeline;  // 64 ms of work, 10 of bubble
}

// DualPipeV (deepseek-ai/DualPipe's eight steps, its forward-backward couples run one after the other here) with
// F = B = W = 1 ms: 48 ms of work and a 3 ms bubble; each rank holds at most pp + 1 micro-batches of one piece's
// activations counted per piece: 2pp + 1 = 9 chunk activations (the repository's table: PP + 1 on PP = 2pp stages).
TEST(ZeroBubble, DualPipeVEqualTimes) {
  const FixedReplay r = replay_fixed(PipelineSchedule::dualpipe_v, 1, 1, 1);
  EXPECT_EQ(r.step.step_time, Time::ms(51)) << r.timeline;
  EXPECT_EQ(rank_peaks(PipelineSchedule::dualpipe_v), (std::vector<double>{9, 9, 9, 9}));
  EXPECT_EQ(replay_fixed(PipelineSchedule::dualpipe_v, 1, 2, 1).step.step_time, Time::ms(72));
}

// Every schedule runs each (micro-batch, chunk) forward once and its weight gradient once, a B before its W, on
// the same rank; and the units' times add up to the work (F + B + W per micro-batch and chunk).
TEST(ZeroBubble, EveryUnitOnceAndWAfterItsB) {
  for (const auto s : {PipelineSchedule::zb_h1, PipelineSchedule::zb_h2, PipelineSchedule::zb_v, PipelineSchedule::dualpipe_v,
                       PipelineSchedule::pipedream_2bw, PipelineSchedule::pipedream_async}) {
    for (const int m : {8, 13}) {
      const ParallelPlan p = zb_plan(s);
      if (s == PipelineSchedule::dualpipe_v && m < 2 * p.pp) continue;
      for (int r = 0; r < p.pp; ++r) {
        std::map<std::pair<int, int>, int> f, b, w;
        for (const PipelineUnit& u : pipeline_order(p, r, m)) {
          const std::pair key{u.micro_batch, u.chunk};
          if (u.forward) ++f[key];
          if (u.input_grad()) {
            EXPECT_EQ(f[key], 1) << to_string(s) << " rank " << r;
            ++b[key];
          }
          if (u.weight_grad()) {
            EXPECT_EQ(b[key], 1) << to_string(s) << " rank " << r << " W before its B";
            ++w[key];
          }
        }
        EXPECT_EQ(f.size(), static_cast<std::size_t>(m * p.chunks())) << to_string(s);
        for (const auto& [key, n] : f) {
          EXPECT_EQ(n, 1);
          EXPECT_EQ(b[key], 1) << to_string(s) << " rank " << r << " mb " << key.first;
          EXPECT_EQ(w[key], 1) << to_string(s) << " rank " << r << " mb " << key.first;
        }
      }
    }
  }
}

// PipeDream-2BW has no flush: two steps' micro-batches replayed back to back take 16 x 3 + 3 x 3 = 57 ms against
// one step's 33, so the steady state runs a step in 24 ms, the bubble gone, plus its optimizer step (0.5 ms).
// It keeps two weight versions; PipeDream keeps pp - stage (4 on rank 0).
TEST(ZeroBubble, PipeDreamRunsWithoutAFlush) {
  const FixedReplay one = replay_fixed(PipelineSchedule::pipedream_2bw, 1, 1, 1, 8, 500);
  const FixedReplay two = replay_fixed(PipelineSchedule::pipedream_2bw, 1, 1, 1, 16, 500);
  EXPECT_EQ(one.step.step_time, Time::us(33'500));
  EXPECT_EQ(two.step.step_time, Time::us(57'500));
  const StepResult steady = steady_state_step(one.step, two.step, Time::us(500));
  EXPECT_EQ(steady.step_time, Time::us(24'500));
  EXPECT_EQ(steady.breakdown.pipeline_wait, Time::zero());
  // F = 1, B = 2, W = 1 ms (B + W the whole backward): one step 8 x 4 + 3 x 4 = 44 ms, two 16 x 4 + 12 = 76 ms, so
  // the steady step is 32 ms, m(F+B+W), plus the optimizer.
  const FixedReplay uneven_one = replay_fixed(PipelineSchedule::pipedream_2bw, 1, 2, 1, 8, 500);
  const FixedReplay uneven_two = replay_fixed(PipelineSchedule::pipedream_2bw, 1, 2, 1, 16, 500);
  EXPECT_EQ(uneven_one.step.step_time, Time::us(44'500));
  EXPECT_EQ(steady_state_step(uneven_one.step, uneven_two.step, Time::us(500)).step_time, Time::us(32'500));
  EXPECT_EQ(weight_versions(zb_plan(PipelineSchedule::pipedream_2bw), 0), 2);
  EXPECT_EQ(weight_delay(zb_plan(PipelineSchedule::pipedream_2bw), 0), 1);
  EXPECT_EQ(weight_versions(zb_plan(PipelineSchedule::pipedream_async), 0), 4);
  EXPECT_EQ(weight_versions(zb_plan(PipelineSchedule::pipedream_async), 3), 1);
  EXPECT_EQ(weight_delay(zb_plan(PipelineSchedule::pipedream_async), 0), 3);
  // PipeDream steps the optimizer after every backward: one step of 8 micro-batches runs 7 more optimizer steps
  // inside it (0.5 ms each), each after the backward's gradient has left and before the rank's next unit.
  const FixedReplay async = replay_fixed(PipelineSchedule::pipedream_async, 1, 1, 1, 8, 500);
  // Rank 0, the critical one: 24 ms of units, 8 optimizer steps (4 ms) and 1F1B's 9 ms of waits: each stage sends
  // its gradient on before it steps, so the steps delay no other stage's backward.
  EXPECT_EQ(async.step.step_time, Time::ms(37));
  EXPECT_EQ(async.step.breakdown.compute, Time::ms(24));
  EXPECT_EQ(async.step.breakdown.pipeline_wait, Time::ms(9));
  EXPECT_EQ(async.step.breakdown.optimizer, Time::us(8 * 500));
}

// A model's memory: ZB-H1's busiest rank holds what 1F1B's rank 0 holds (4 micro-batches of a stage), ZB-H2's 7;
// PipeDream-2BW adds one copy of the working weights.
TEST(ZeroBubble, MemoryHighWaterMarks) {
  ModelSpec m = testing::tiny_gpt();
  m.layers = 8;
  TrainingConfig t = testing::tiny_training();
  t.global_batch = 8;
  const auto act = [&](PipelineSchedule s) { return peak_memory_per_gpu(m, zb_plan(s), t); };
  const MemoryBreakdown one = act(PipelineSchedule::one_f_one_b), h1 = act(PipelineSchedule::zb_h1),
                        h2 = act(PipelineSchedule::zb_h2), bw = act(PipelineSchedule::pipedream_2bw);
  const double stage = 2 * activation_bytes_per_layer(m, zb_plan(PipelineSchedule::zb_h1), t, LayerKind::dense).value();
  // 1F1B's rank 0: 4 x 2 layers; the last rank also holds the logits (128 tokens x 1000 x 6 bytes), which make it
  // the most loaded under ZB-H1, where it too holds 4 micro-batches.
  const double logits = 128.0 * 1000 * 6;
  EXPECT_DOUBLE_EQ(h1.activations.value(), 4 * stage + logits);
  EXPECT_DOUBLE_EQ(h2.activations.value(), 7 * stage + logits);
  EXPECT_NEAR(one.activations.value(), 4 * stage, 1e-6 * stage);
  // At its peak ZB-H1's last rank holds micro-batches 0-3, and three of them (B0, B1, B2 run) wait for their W;
  // rank 0 reaches the same peak before any B.
  EXPECT_DOUBLE_EQ(h1.activations_awaiting_w.value(), 3 * stage);
  EXPECT_EQ(one.activations_awaiting_w.value(), 0.0);
  const std::vector<double> unit{1.0};
  const HeldActivations last = held_activations_at_peak(pipeline_order(zb_plan(PipelineSchedule::zb_h1), 3, 8), unit);
  const HeldActivations first = held_activations_at_peak(pipeline_order(zb_plan(PipelineSchedule::zb_h1), 0, 8), unit);
  EXPECT_EQ(last.total, 4.0);
  EXPECT_EQ(last.awaiting_weight_grad, 3.0);
  EXPECT_EQ(first.total, 4.0);
  EXPECT_EQ(first.awaiting_weight_grad, 0.0);
  EXPECT_EQ(bw.weight_versions, 2);
  EXPECT_DOUBLE_EQ(bw.stashed_weights.value(), bw.weights.value());
  EXPECT_EQ(one.weight_versions, 1);
  EXPECT_EQ(one.stashed_weights.value(), 0.0);
}

// B and W are the backward's kernels split: their sum is the whole backward on the tiny GPT (FixedCostModel: the
// layer's 4 wgrad GEMMs are its W, 4 ms; its B is the rest, 8.5 ms; the output layer's logits wgrad is its W).
TEST(ZeroBubble, InputAndWeightGradientsAddUpToTheBackward) {
  testing::TinyUnits u;
  u.plan.pp = 2;
  u.plan.schedule = PipelineSchedule::zb_h1;
  u.model.layers = 2;
  const UnitCosts c = u.costs();
  for (int s = 0; s < 2; ++s) {
    EXPECT_EQ(c.input_grad(s, 0).total() + c.weight_grad(s, 0).total(), c.backward(s, 0).total()) << s;
  }
  // Stage 0: embedding + 1 layer; W = 4 GEMMs = 4 ms. Stage 1: 1 layer + output; W = 5 ms.
  EXPECT_EQ(c.weight_grad(0, 0).total(), Time::ms(4));
  EXPECT_EQ(c.weight_grad(1, 0).total(), Time::ms(5));
}

TEST(ZeroBubble, ConditionsAreChecked) {
  ModelSpec m = testing::tiny_gpt();
  m.layers = 8;
  TrainingConfig t = testing::tiny_training();
  ParallelPlan p = zb_plan(PipelineSchedule::dualpipe_v);
  t.global_batch = 6;  // fewer than 2 pp micro-batches
  EXPECT_THROW(check_plan({"x.yaml", 1, 1}, m, p, t, 4, 8), InputError);
  t.global_batch = 8;
  EXPECT_NO_THROW(check_plan({"x.yaml", 1, 1}, m, p, t, 4, 8));
  ParallelPlan single = zb_plan(PipelineSchedule::zb_h1, 1);
  EXPECT_THROW(check_plan({"x.yaml", 1, 1}, m, single, t, 1, 8), InputError);
  ParallelPlan vpp = zb_plan(PipelineSchedule::zb_v);
  vpp.virtual_stages = 2;
  EXPECT_THROW(check_plan({"x.yaml", 1, 1}, m, vpp, t, 4, 8), InputError);
}

}  // namespace
}  // namespace cs
