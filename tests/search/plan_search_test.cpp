// Plan search: the enumeration against a hand-counted case, rank correlations, the `parallelism: search`
// hook, and the two-stage search end to end on a small model.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "sim/scenario/runner.hpp"
#include "sim/search/plan_search.hpp"
#include "sim/search/plan_space.hpp"
#include "sim/search/screen_model.hpp"
#include "sim/search/rank_correlation.hpp"

namespace cs {
namespace {

// A 2-layer, 2-head model on one 8-GPU DGX H100 node, global batch 2, sequences of 8 tokens.
const std::string kTiny = R"(format_version: 1
name: tiny search
model: {name: tiny, layers: 2, hidden: 64, heads: 2, vocab: 128, seq_len: 8}
cluster: {gpus: 8, topology: dgx-h100, profile: h100-sxm}
parallelism: search
training: {global_batch: 2, micro_batch: 2, precision: bf16}
)";

TEST(PlanSpace, EnumerationMatchesAHandCountedCase) {
  const SearchableScenario s = load_searchable_scenario(kTiny, "tiny.yaml");
  ASSERT_TRUE(s.search);
  EXPECT_EQ(s.scenario.training.global_batch, 2);  // restored after the placeholder plan
  PlanSpaceCounts counts;
  std::int64_t visited = 0;
  enumerate_plans(s.scenario, counts, [&](const PlanCandidate&) { ++visited; });
  // tp | heads (2) and the node (8): tp 1, 2. cp: seq 8 splits in halves for cp 1, 2, 4 (not 8: 1 token).
  // pp | layers (2): 1, 2. dp = 8/(tp*cp*pp) must divide the global batch 2, so dp is 1 or 2:
  //   tp1: cp2 pp2 dp2 | cp4 pp1 dp2 | cp4 pp2 dp1        tp2: cp1 pp2 dp2 | cp2 pp1 dp2 | cp2 pp2 dp1 | cp4 pp1 dp1
  EXPECT_EQ(counts.layouts, 7);
  // vpp is 1 everywhere (pp 1, or 1 layer per stage); micro-batch divides 2/dp: {1} for dp2, {1, 2} for dp1.
  // Recompute none or full (flash attention: selective is the same plan as none); dp*cp > 1 in every layout, so
  // ZeRO 0..3 and the grad-reduce overlap on/off; param-gather overlap on/off with ZeRO >= 1; TP overlap on/off
  // with tp 2. Per micro-batch choice and recompute mode:
  //   ZeRO 0: 2 variants, ZeRO 1-3: 3 x 4 = 12, so 14; times 2 recompute modes = 28 (x2 with tp 2).
  //   tp1: 28 + 28 + 2*28 = 112         tp2: 56 + 56 + 2*56 + 2*56 = 336          total 448
  EXPECT_EQ(counts.enumerated, 448);
  EXPECT_EQ(counts.out_of_memory, 0);  // a 2-layer model fits 80 GB however it is split
  EXPECT_EQ(counts.valid, 448);
  EXPECT_EQ(visited, 448);
  // With the unfused attention kernel selective recompute is a plan of its own: 3 modes instead of 2.
  std::string unfused = kTiny;
  unfused.replace(unfused.find("precision: bf16"), 15, "precision: bf16, attention: unfused");
  PlanSpaceCounts three;
  enumerate_plans(load_searchable_scenario(unfused, "tiny.yaml").scenario, three, [](const PlanCandidate&) {});
  EXPECT_EQ(three.enumerated, 672);  // 448 * 3 / 2
}

TEST(PlanSpace, MemoryPrunesWhatCannotFit) {
  // GPT-3 175B on 8 GPUs: no plan fits 80 GB per GPU (350 GB of bf16 weights alone over 8 GPUs is 44 GB,
  // and the Adam states add 12 bytes per parameter unless ZeRO shards them over dp, which is at most 8).
  const std::string text = R"(format_version: 1
name: too big
model: {preset: gpt3-175b}
cluster: {gpus: 8, topology: dgx-h100, profile: h100-sxm}
parallelism: search
training: {global_batch: 8, precision: bf16}
)";
  const SearchableScenario s = load_searchable_scenario(text, "big.yaml");
  SearchOptions opt;
  opt.top = 1;
  opt.sample = 0;
  const SearchResult r = search_plans(s, text, "big.yaml", opt);
  EXPECT_GT(r.counts.enumerated, 0);
  EXPECT_EQ(r.counts.out_of_memory, r.counts.enumerated);
  EXPECT_TRUE(r.replayed.empty());
  EXPECT_NE(r.no_plan_reason().find("out of memory"), std::string::npos);
}

/// A plan search over a tiny MoE model (8 experts, top-2) of `layers` layers on 16 H100s, `batch` sequences.
std::string tiny_moe_yaml(int layers, int batch) {
  return fmt::format(R"(format_version: 1
name: tiny moe search
model: {{name: tiny moe, layers: {}, hidden: 256, heads: 4, vocab: 128, seq_len: 64, experts: 8, top_k: 2, expert_ffn_hidden: 256}}
cluster: {{gpus: 16, topology: dgx-h100, profile: h100-sxm}}
parallelism: search
training: {{global_batch: {}, precision: bf16}}
)", layers, batch);
}
SearchableScenario tiny_moe_search(int layers, int batch) { return load_searchable_scenario(tiny_moe_yaml(layers, batch), "moe.yaml"); }

// An MoE model: the all-to-all overlap is a plan option exactly where Megatron-Core allows it (EP > 1; with a
// pipeline, interleaving; no full recompute; two micro-batches to pair), it holds one more micro-batch of
// activations (unless it already holds them all), and the screen prices
// an overlapped plan no slower than the same plan without it.
TEST(PlanSpace, EpOverlapIsEnumeratedWhereMegatronCoreAllowsIt) {
  const SearchableScenario s = tiny_moe_search(4, 32);
  ScreenModel screen(s.scenario);
  PlanSpaceCounts counts;
  int overlapped = 0;
  std::map<std::string, std::pair<double, Bytes>> plain;  // describe() without the overlap -> (screened s, memory)
  std::vector<PlanCandidate> with;
  enumerate_plans(s.scenario, counts, [&](const PlanCandidate& c) {
    const ParallelPlan& p = c.plan;
    if (c.overlap.ep_comm) {
      ++overlapped;
      EXPECT_GT(p.ep, 1);
      EXPECT_TRUE(p.pp == 1 || p.virtual_stages > 1 || p.schedule == PipelineSchedule::dualpipe) << describe(c);
      EXPECT_NE(c.recompute, Recompute::full);
      with.push_back(c);
    } else {
      plain[describe(c)] = {screen.estimate(c).step.seconds(), c.memory};
    }
  });
  ASSERT_GT(overlapped, 0);
  for (PlanCandidate c : with) {
    const double merged = screen.estimate(c).step.seconds();
    const Bytes memory = c.memory;
    c.overlap.ep_comm = false;
    const auto it = plain.find(describe(c));
    ASSERT_NE(it, plain.end()) << describe(c);
    EXPECT_LE(merged, it->second.first + 1e-12) << describe(c);
    EXPECT_GE(memory.value(), it->second.second.value()) << describe(c);  // more unless every micro-batch is held
  }
}

// DualPipe is enumerated beside 1F1B where its conditions hold (even pp, an even number of at least 2 pp
// micro-batches, no virtual stages); the screen gives it a shorter bubble than 1F1B's (pp/2 - 1 against pp - 1
// units of forward and backward) and the memory check holds its two pieces.
TEST(PlanSpace, DualPipeIsEnumeratedWhereItsConditionsHold) {
  const SearchableScenario s = tiny_moe_search(8, 64);
  ScreenModel screen(s.scenario);
  PlanSpaceCounts counts;
  std::map<std::string, std::pair<ScreenEstimate, Bytes>> one_f;  // 1F1B plans by describe()
  std::vector<PlanCandidate> dual;
  enumerate_plans(s.scenario, counts, [&](const PlanCandidate& c) {
    const ParallelPlan& p = c.plan;
    if (p.schedule == PipelineSchedule::dualpipe) {
      EXPECT_EQ(p.pp % 2, 0);
      EXPECT_EQ(p.virtual_stages, 1);
      const std::int64_t mbs = 64 / (static_cast<std::int64_t>(c.micro_batch) * p.dp);
      EXPECT_GE(mbs, 2 * p.pp) << describe(c);
      EXPECT_EQ(mbs % 2, 0);
      dual.push_back(c);
    } else if (p.schedule == PipelineSchedule::one_f_one_b) {
      one_f[describe(c)] = {screen.estimate(c), c.memory};
    }
  });
  ASSERT_FALSE(dual.empty());
  int compared = 0;
  int overlapped = 0;
  for (PlanCandidate c : dual) {
    if (c.overlap.ep_comm) {  // 1F1B with a pipeline has no overlapped twin
      ++overlapped;
      continue;
    }
    const ScreenEstimate d = screen.estimate(c);
    const Bytes memory = c.memory;
    c.plan.schedule = PipelineSchedule::one_f_one_b;
    const auto it = one_f.find(describe(c));
    ASSERT_NE(it, one_f.end()) << describe(c);  // DualPipe holds more: its 1F1B twin fits too
    ++compared;
    EXPECT_LT(d.bubble.seconds(), it->second.first.bubble.seconds()) << describe(c);
    EXPECT_GE(memory.value(), it->second.second.value()) << describe(c);
  }
  EXPECT_GT(overlapped, 0);  // DualPipe's couples may overlap the all-to-all
  EXPECT_EQ(compared + overlapped, static_cast<int>(dual.size()));
}

TEST(RankCorrelation, HandComputedValues) {
  // Ranks (1,2,3,4) vs (1,3,2,4): sum d^2 = 2, rho = 1 - 6*2/(4*(16-1)) = 0.8.
  EXPECT_NEAR(spearman_rho({1, 2, 3, 4}, {10, 30, 20, 40}), 0.8, 1e-12);
  // 6 pairs, one discordant (2nd, 3rd): tau = (5 - 1)/6.
  EXPECT_NEAR(kendall_tau({1, 2, 3, 4}, {10, 30, 20, 40}), 4.0 / 6.0, 1e-12);
  EXPECT_NEAR(spearman_rho({1, 2, 3}, {3, 2, 1}), -1.0, 1e-12);
  EXPECT_NEAR(kendall_tau({1, 2, 3}, {5, 6, 7}), 1.0, 1e-12);
  // Ties take the average rank: (1, 2.5, 2.5, 4) against (1, 2, 3, 4) is still perfectly ordered by Kendall's
  // tau-b? No: the tied pair counts in neither concordant nor discordant, tau-b = 5/sqrt(5*6).
  EXPECT_NEAR(kendall_tau({1, 2, 2, 4}, {1, 2, 3, 4}), 5.0 / std::sqrt(30.0), 1e-12);
}

TEST(PlanSearch, ReplaysTheBestScreenedPlansAndRanksThemByReplay) {
  const SearchableScenario s = load_searchable_scenario(kTiny, "tiny.yaml");
  SearchOptions opt;
  opt.top = 4;
  opt.sample = 4;
  opt.threads = 2;
  const SearchResult r = search_plans(s, kTiny, "tiny.yaml", opt);
  ASSERT_EQ(r.replayed.size(), 4u);
  EXPECT_EQ(r.sampled.size(), 8u);
  EXPECT_EQ(r.ranked.size(), 448u);
  for (std::size_t i = 1; i < r.ranked.size(); ++i) EXPECT_LE(r.ranked[i - 1].step_s, r.ranked[i].step_s);
  for (std::size_t i = 1; i < r.replayed.size(); ++i) {
    EXPECT_LE(r.replayed[i - 1].result.step.step_time, r.replayed[i].result.step.step_time);
    EXPECT_FALSE(why_slower(r.replayed[i], r.replayed[i - 1]).empty());
  }
  EXPECT_GE(r.spearman, -1.0);
  EXPECT_LE(r.spearman, 1.0);
  // The replay is run_scenario itself: the best plan, loaded as an ordinary scenario, gives the same step.
  const ReplayedPlan& best = r.best_replayed();
  std::string text = kTiny;
  const ParallelPlan& p = best.candidate.plan;
  text.replace(text.find("parallelism: search"), 19,
               "parallelism: {tp: " + std::to_string(p.tp) + ", pp: " + std::to_string(p.pp) + ", dp: " +
                   std::to_string(p.dp) + ", cp: " + std::to_string(p.cp) + ", zero: " + std::to_string(p.zero_stage) + "}");
  text.replace(text.find("micro_batch: 2"), 14, "micro_batch: " + std::to_string(best.candidate.micro_batch));
  Scenario sc = load_scenario_text(text, "tiny-best.yaml");
  apply_candidate(best.candidate, sc.training);
  EXPECT_EQ(run_scenario(sc).step.step_time, best.result.step.step_time);
}

// The screen runs on several threads, each taking whole groups of plans that share a layer key: the ranking and
// every screened time are the same as on one thread, and equal to a lone ScreenModel's estimate.
TEST(PlanSearch, ScreenGivesTheSameRankingOnOneThreadAndOnSeveral) {
  const SearchableScenario s = tiny_moe_search(4, 32);
  const std::string yaml = tiny_moe_yaml(4, 32);
  SearchOptions opt;
  opt.top = 0;
  opt.sample = 0;
  opt.threads = 1;
  const SearchResult one = search_plans(s, yaml, "moe.yaml", opt);
  opt.threads = 3;
  const SearchResult three = search_plans(s, yaml, "moe.yaml", opt);
  ASSERT_GT(one.ranked.size(), 100u);
  ASSERT_EQ(one.ranked.size(), three.ranked.size());
  ScreenModel lone(s.scenario);
  for (std::size_t i = 0; i < one.ranked.size(); ++i) {
    EXPECT_EQ(describe(one.ranked[i].candidate), describe(three.ranked[i].candidate)) << "rank " << i;
    EXPECT_EQ(one.ranked[i].step_s, three.ranked[i].step_s) << "rank " << i;
    if (i % 37 == 0) {
      EXPECT_EQ(one.ranked[i].step_s, lone.estimate(one.ranked[i].candidate).step.seconds());
    }
  }
}

// A model whose layers alternate a sliding window and full attention (GPT-OSS) is screened at the mean of its two
// kinds of layer: between the same model with every layer windowed and with none.
/// The screened step of a searchable 8-GPU scenario under plain data parallelism (DP 8, micro-batch 1).
double screened_dp8_step(const std::string& yaml) {
  const SearchableScenario s = load_searchable_scenario(yaml, "screened.yaml");
  ScreenModel screen(s.scenario);
  PlanCandidate c;
  c.plan.tp = 1;
  c.plan.pp = 1;
  c.plan.dp = 8;
  c.micro_batch = 1;
  return screen.estimate(c).step.seconds();
}

TEST(PlanSpace, AlternatingWindowsScreenBetweenAllWindowedAndNone) {
  const auto screened = [](const std::string& window) {
    const std::string yaml = R"(format_version: 1
name: windows
model: {name: w, layers: 8, hidden: 1024, heads: 16, vocab: 1000, seq_len: 8192)" + window + R"(}
cluster: {gpus: 8, topology: dgx-h100, profile: h100-sxm}
parallelism: search
training: {global_batch: 16, precision: bf16}
)";
    return screened_dp8_step(yaml);
  };
  const double none = screened(""), alternate = screened(", sliding_window: 128, full_attention_every: 2"),
               all = screened(", sliding_window: 128");
  EXPECT_LT(all, alternate);
  EXPECT_LT(alternate, none);
  EXPECT_NEAR(alternate, (all + none) / 2, 0.02 * none);
}

// A hybrid model's screen prices each kind of block (Mamba-2 mixer, attention, MLP) as a model of that block only
// and takes their mean by count: a pattern of half mixers and half MLPs screens halfway between all-mixer and
// all-MLP models; the layouts enumerated split the mixers' heads and groups over TP; and the search ranks plans
// of Nemotron-H 8B on a node as its full replay does.
TEST(PlanSearch, HybridModelsScreenTheMeanOfTheirBlocksAndRankLikeTheReplay) {
  const auto yaml = [](const std::string& pattern) {
    return R"(format_version: 1
name: hybrid
model: {name: h, hybrid_pattern: ")" + pattern + R"(", hidden: 1024, heads: 16, vocab: 1000, seq_len: 4096, mamba_heads: 32, mamba_groups: 8}
cluster: {gpus: 8, topology: dgx-h100, profile: h100-sxm}
parallelism: search
training: {global_batch: 16, precision: bf16}
)";
  };
  const auto screened = [&](const std::string& pattern) {
    return screened_dp8_step(yaml(pattern));
  };
  const double mixers = screened("MMMMMMMM"), mlps = screened("--------"), half = screened("M-M-M-M-");
  EXPECT_NE(mixers, mlps);
  EXPECT_NEAR(half, (mixers + mlps) / 2, 0.02 * half);

  const SearchableScenario s = load_searchable_scenario(yaml("M-M-M*M-"), "h.yaml");
  PlanSpaceCounts counts;
  int visited = 0;
  enumerate_plans(s.scenario, counts, [&](const PlanCandidate& c) {
    ++visited;
    EXPECT_EQ(32 % c.plan.tp, 0);
    EXPECT_EQ(8 % (c.plan.tp * c.plan.cp), 0) << "groups per TP rank must split over CP";
  });
  EXPECT_GT(visited, 0);
  SearchOptions opt;
  opt.top = 4;
  opt.sample = 8;
  opt.threads = 2;
  const SearchResult r = search_plans(s, yaml("M-M-M*M-"), "h.yaml", opt);
  ASSERT_EQ(r.replayed.size(), 4u);
  EXPECT_GT(r.spearman, 0.8);
}

TEST(SearchScenario, PlaceholderKeepsLineNumbersOfOtherErrors) {
  // An error below `parallelism: search` is reported on the user's own line (6), not a re-emitted one.
  const std::string bad = "format_version: 1\nname: x\nmodel: {preset: gpt3-1.3b}\ncluster: {gpus: 8, topology: dgx-h100, profile: h100-sxm}\n"
                          "parallelism: search\ntraining: {global_batch: 8, precision: fp7}\n";
  try {
    (void)load_searchable_scenario(bad, "x.yaml");
    FAIL() << "accepted fp7";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 6);
    EXPECT_EQ(e.key_path(), "training.precision");
  }
  EXPECT_FALSE(asks_for_plan_search("parallelism: {tp: 2}\n"));
  EXPECT_TRUE(asks_for_plan_search("parallelism: search\n"));
}

}  // namespace
}  // namespace cs
