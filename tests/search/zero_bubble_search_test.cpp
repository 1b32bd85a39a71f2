// The plan search and the zero-bubble schedules (issue 45): where they are enumerated, how the screen prices their
// bubbles against 1F1B's, and the search's sentence on why it chose one or did not.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>
#include <string>

#include "sim/search/plan_search.hpp"

namespace cs {
namespace {

/// A 16-layer dense model on 16 H100s, `batch` sequences per step.
std::string zb_search_yaml(int batch) {
  return fmt::format(R"(format_version: 1
name: zero-bubble search
model: {{name: zb dense, layers: 16, hidden: 1024, heads: 8, vocab: 1000, seq_len: 512}}
cluster: {{gpus: 16, topology: dgx-h100, profile: h100-sxm}}
parallelism: search
training: {{global_batch: {}, precision: bf16}}
)", batch);
}

// ZB-H1, ZB-H2 and ZB-V appear beside 1F1B exactly where there is one chunk per rank, a pipeline and at least 2 pp
// micro-batches; for the same layout the screen gives ZB-H1 a smaller bubble than 1F1B (the W of pp - 1 units
// fills it), ZB-H2 smaller still, at 1F1B's memory for ZB-H1 (within its last rank's logits) and more for ZB-H2.
TEST(ZeroBubbleSearch, EnumeratedBeside1F1BAndScreenedWithTheirBubbles) {
  const std::string text = zb_search_yaml(64);
  const SearchableScenario s = load_searchable_scenario(text, "zb.yaml");
  ScreenModel screen(s.scenario);
  PlanSpaceCounts counts;
  std::map<std::string, std::map<PipelineSchedule, std::pair<ScreenEstimate, double>>> by_layout;
  int zero_bubble = 0;
  enumerate_plans(s.scenario, counts, [&](const PlanCandidate& c) {
    const ParallelPlan& p = c.plan;
    if (splits_backward(p.schedule)) {
      ++zero_bubble;
      EXPECT_GE(p.pp, 2);
      EXPECT_EQ(p.virtual_stages, 1);
      EXPECT_GE(64 / (c.micro_batch * p.dp), 2 * p.pp) << describe(c);
    }
    PlanCandidate key = c;
    key.plan.schedule = PipelineSchedule::one_f_one_b;
    by_layout[describe(key)][p.schedule] = {screen.estimate(c), c.memory.value()};
  });
  ASSERT_GT(zero_bubble, 0);
  int compared = 0;
  for (const auto& [layout, plans] : by_layout) {
    if (!plans.contains(PipelineSchedule::zb_h1)) continue;
    const auto& one = plans.at(PipelineSchedule::one_f_one_b);
    const auto& h1 = plans.at(PipelineSchedule::zb_h1);
    const auto& h2 = plans.at(PipelineSchedule::zb_h2);
    EXPECT_LT(h1.first.bubble, one.first.bubble) << layout;
    EXPECT_LE(h2.first.bubble, h1.first.bubble) << layout;
    EXPECT_EQ(h1.first.compute, one.first.compute) << layout;
    EXPECT_NEAR(h1.second / one.second, 1.0, 0.05) << layout;
    EXPECT_GE(h2.second, h1.second) << layout;
    ++compared;
  }
  EXPECT_GT(compared, 0);
}

// The search says what it did about them: with few micro-batches no zero-bubble plan exists; with many, the note
// names the schedule it chose or how far the best zero-bubble plan fell behind.
TEST(ZeroBubbleSearch, SaysWhyItChoseOrDidNotChooseOne) {
  SearchOptions opt;
  opt.top = 6;
  opt.sample = 0;
  opt.threads = 2;
  const std::string few = zb_search_yaml(2);
  const SearchResult a = search_plans(load_searchable_scenario(few, "zb.yaml"), few, "zb.yaml", opt);
  ASSERT_FALSE(a.replayed.empty());
  EXPECT_EQ(a.zero_bubble_note().rfind("no zero-bubble schedule", 0), 0u) << a.zero_bubble_note();

  const std::string many = zb_search_yaml(256);
  const SearchResult b = search_plans(load_searchable_scenario(many, "zb.yaml"), many, "zb.yaml", opt);
  ASSERT_FALSE(b.replayed.empty());
  const std::string note = b.zero_bubble_note();
  if (splits_backward(b.best_replayed().candidate.plan.schedule)) {
    EXPECT_EQ(note.rfind("chose " + to_string(b.best_replayed().candidate.plan.schedule), 0), 0u) << note;
  } else {
    EXPECT_EQ(note.rfind("no zero-bubble schedule", 0), 0u) << note;
  }
}

// GPT-3 175B on 64 H100 with 250 sequences per step: at DP 2 the pipeline runs 125 micro-batches, which pp 8 does
// not divide, so interleaving is out; the search picks a zero-bubble schedule and says so.
TEST(ZeroBubbleSearch, ChoosesAZeroBubbleScheduleWhereInterleavingCannotDivide) {
  const std::string text = R"(format_version: 1
name: gpt3 on 64
model: {preset: gpt3-175b}
cluster: {gpus: 64, topology: dgx-h100, profile: h100-sxm}
parallelism: search
training: {global_batch: 250, seq_len: 2048, precision: bf16}
)";
  SearchOptions opt;
  opt.top = 3;
  opt.sample = 0;
  const SearchResult r = search_plans(load_searchable_scenario(text, "gpt3.yaml"), text, "gpt3.yaml", opt);
  ASSERT_FALSE(r.replayed.empty());
  const PlanCandidate& best = r.best_replayed().candidate;
  EXPECT_TRUE(splits_backward(best.plan.schedule)) << describe(best);
  EXPECT_EQ(r.zero_bubble_note().rfind("chose zb-", 0), 0u) << r.zero_bubble_note();
}

// The note on a ranking whose best plan runs ZB-H1, and on one whose zero-bubble plan lost in the replay.
TEST(ZeroBubbleSearch, NoteNamesTheChosenScheduleOrTheLoss) {
  ReplayedPlan zb, plain;
  zb.candidate.plan.pp = plain.candidate.plan.pp = 4;
  zb.candidate.plan.schedule = PipelineSchedule::zb_h1;
  zb.result.step.step_time = Time::ms(90);
  plain.result.step.step_time = Time::ms(100);
  plain.result.step.breakdown.pipeline_wait = Time::ms(30);
  zb.result.step.breakdown.pipeline_wait = Time::ms(20);
  SearchResult won;
  won.replayed = {zb, plain};
  EXPECT_EQ(won.zero_bubble_note(), "chose zb-h1: its backward's weight gradients fill the pipeline's bubbles");
  SearchResult lost;
  zb.result.step.step_time = Time::ms(110);
  zb.result.step.breakdown.pipeline_wait = Time::ms(40);
  lost.replayed = {plain, zb};
  EXPECT_NE(lost.zero_bubble_note().find("+0.010 s step: +0.010 s pipeline bubble and waits"), std::string::npos)
      << lost.zero_bubble_note();
}

}  // namespace
}  // namespace cs
