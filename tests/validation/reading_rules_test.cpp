// How validation rows' prose is read (data/validation/reading_rules.yaml, sim/validation/reading_rules.hpp): the
// shipped rules on hand-written cells, negation, conditions, the overlay read through the parameter tables, and
// bad rule files rejected at their lines.
#include "sim/validation/reading_rules.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "sim/core/error.hpp"
#include "temp_path.hpp"

namespace cs {
namespace {

RowOverlay read_row(const std::map<std::string, std::string>& cells, bool moe) {
  return ReadingRules::shipped().read(
      [&](const std::string& c) {
        const auto it = cells.find(c);
        return it == cells.end() ? std::string() : it->second;
      },
      moe);
}

TEST(ReadingRules, ShippedRulesStateSettingsFromProse) {
  const RowOverlay o = read_row({{"notes", "ETP=1; DeepEP dispatcher; moe_a2a_overlap=False; TP comm overlap on"}}, true);
  EXPECT_TRUE(o.sets("parallelism.expert_tp"));
  EXPECT_TRUE(o.sets("training.moe_dispatcher"));
  EXPECT_FALSE(o.sets("training.overlap.ep_comm"));  // negated: "=False"
  EXPECT_TRUE(o.sets("training.overlap.tp_comm"));
  ParallelPlan p;
  p.expert_tp = 4;
  TrainingConfig t;
  apply_overlay(o, "rules.yaml", p, t);
  EXPECT_EQ(p.expert_tp, 1);
  EXPECT_EQ(t.moe_dispatcher, MoeDispatcher::flex);
  EXPECT_TRUE(t.overlap.tp_comm);
  EXPECT_FALSE(t.overlap.ep_comm);
  EXPECT_EQ(t.global_batch, TrainingConfig{}.global_batch);  // untouched
  EXPECT_EQ(o.says, std::vector<std::string>{"flex dispatcher (DeepEP / HybridEP)"});
}

TEST(ReadingRules, NegationConditionsAndModelKind) {
  // "no DeepEP" does not state it; a dense row never takes the MoE rules.
  EXPECT_FALSE(read_row({{"notes", "no DeepEP here"}}, true).sets("training.moe_dispatcher"));
  EXPECT_FALSE(read_row({{"notes", "DeepEP"}}, false).sets("training.moe_dispatcher"));
  // Token dropping read from the model name too, unless the row says dropless.
  EXPECT_TRUE(read_row({{"model", "Qwen3_30B_a3B (tokendrop)"}}, true).sets("training.moe_capacity_factor"));
  EXPECT_FALSE(read_row({{"notes", "token drop off, dropless"}}, true).sets("training.moe_capacity_factor"));
  // fp4_param_gather False applies to 4-bit rows only.
  EXPECT_FALSE(read_row({{"notes", "fp4_param_gather False"}, {"precision", "fp8"}}, false).sets("training.fp8_params"));
  EXPECT_TRUE(read_row({{"notes", "fp4_param_gather False"}, {"precision", "NVFP4"}}, false).sets("training.fp8_params"));
  // Every phrase of `all`: NeMo's distributed_fused_adam in bf16 keeps moments and master weights in bf16.
  TrainingConfig t;
  ParallelPlan p;
  apply_overlay(read_row({{"notes", "distributed_fused_adam, dtype bf16"}}, false), "rules.yaml", p, t);
  EXPECT_EQ(t.optimizer_moments, DType::bf16);
  EXPECT_EQ(t.master_weights, DType::bf16);
  EXPECT_FALSE(read_row({{"notes", "distributed_fused_adam"}}, false).sets("training.master_weights"));
  // How a figure was counted, from the notes or the recompute column; and the framework's era.
  EXPECT_TRUE(read_row({{"act_recompute", "full (FLOP formula counts it)"}}, false).sets("measured.counts_recompute"));
  EXPECT_FALSE(read_row({{"notes", "MFU on 989 TFLOP/s"}}, false).sets("measured.counts_recompute"));
  TrainingConfig old;
  apply_overlay(read_row({{"framework", "Megatron-LM (2021)"}}, false), "rules.yaml", p, old);
  EXPECT_EQ(old.attention, AttentionKernel::unfused);
}

TEST(ReadingRules, LayoutFactsAreStatedNotApplied) {
  // DualPipe from the virtual-pipeline column or the notes, ASYM_PP: the layout logic reads them (and checks
  // them against the pipeline); applying the overlay leaves the plan's schedule alone.
  const RowOverlay o = read_row({{"vpp_interleave", "DualPipe"}, {"notes", "ASYM_PP=1"}}, true);
  EXPECT_EQ(o.stated("parallelism.schedule"), "dualpipe");
  EXPECT_EQ(o.stated("parallelism.embedding_in_split"), "true");
  ParallelPlan p;
  TrainingConfig t;
  apply_overlay(o, "rules.yaml", p, t);
  EXPECT_EQ(p.schedule, ParallelPlan{}.schedule);
  EXPECT_FALSE(p.embedding_in_split);
  EXPECT_EQ(read_row({{"notes", "1F1B"}}, true).stated("parallelism.schedule"), std::nullopt);
  // Flash attention named: kept, except under a 2021-22 framework, which ran attention unfused.
  TrainingConfig flash;
  apply_overlay(read_row({{"notes", "--use-flash-attn"}}, false), "rules.yaml", p, flash);
  EXPECT_EQ(flash.attention, AttentionKernel::flash);
  EXPECT_TRUE(read_row({{"notes", "--use-flash-attn"}}, false).sets("training.attention"));
  TrainingConfig old;
  apply_overlay(read_row({{"notes", "flash"}, {"framework", "Megatron-LM (2022)"}}, false), "rules.yaml", p, old);
  EXPECT_EQ(old.attention, AttentionKernel::unfused);
}

TEST(ReadingRules, ARowSpeaksForItselfWhereItMentionsARecipesAspect) {
  const ReadingRules& r = ReadingRules::shipped();
  const auto notes = [](const std::string& text) {
    return RowCells([text](const std::string& column) { return column == "notes" ? text : std::string(); });
  };
  EXPECT_TRUE(r.speaks_of("a2a_overlap", notes("moe_a2a_overlap=False")));
  EXPECT_TRUE(r.speaks_of("dispatcher", notes("HybridEP")));
  EXPECT_TRUE(r.speaks_of("cuda_graphs", notes("no CUDA graphs")));
  EXPECT_FALSE(r.speaks_of("cuda_graphs", notes("TP comm overlap on")));
  EXPECT_THROW((void)r.speaks_of("recompute", notes("x")), std::invalid_argument);
  // The recipe's own words are read as the `recipe` column, beside the notes.
  EXPECT_TRUE(read_row({{"recipe", " deepep dispatcher."}}, true).sets("training.moe_dispatcher"));
}

TEST(ReadingRules, CudaGraphsWholeStepOrSomeModules) {
  // The whole step captured: the cuda-graphs framework (no eager launch costs).
  const RowOverlay whole = read_row({{"notes", "CUDA graphs, full iteration; cuda_graph_scope attn"}}, false);
  EXPECT_TRUE(whole.sets("training.framework"));
  EXPECT_TRUE(read_row({{"notes", "CUDA graphs on"}}, false).sets("training.framework"));
  // Some modules: the rest eager (no framework stated), the named modules captured.
  const RowOverlay some = read_row({{"notes", "CUDA graphs of attn, moe_router (TE); partial capture"}}, true);
  EXPECT_FALSE(some.sets("training.framework"));
  EXPECT_TRUE(some.sets("training.cuda_graph_modules.attn"));
  EXPECT_TRUE(some.sets("training.cuda_graph_modules.moe_router"));
  EXPECT_FALSE(some.sets("training.cuda_graph_modules.mlp"));
  TrainingConfig t;
  ParallelPlan p;
  apply_overlay(some, "rules.yaml", p, t);
  EXPECT_TRUE(t.cuda_graph_modules.attn);
  EXPECT_TRUE(t.cuda_graph_modules.moe_router);
  EXPECT_FALSE(t.cuda_graph_modules.mlp);
  // Stated off: nothing.
  for (const char* off : {"no CUDA graphs", "cuda_graph_impl=none", "CUDA graphs: none"}) {
    const RowOverlay o = read_row({{"notes", off}}, false);
    EXPECT_FALSE(o.sets("training.framework")) << off;
    EXPECT_FALSE(o.sets("training.cuda_graph_modules")) << off;
  }
}

std::string rules_file(const std::string& body) {
  const auto path = testing::temp_file("reading_rules", ".yaml");
  std::ofstream(path, std::ios::binary)
      << "recipe_aspects: {read: [notes], a2a_overlap: [a2a], dispatcher: [deepep], cuda_graphs: [cuda graph]}\n"
         "read: [notes]\n"
         "rules:\n"
      << body;
  return path.string();
}

std::string load_error(const std::string& body) {
  const std::string path = rules_file(body);
  try {
    (void)ReadingRules::load(path);
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    return what;
  }
  ADD_FAILURE() << "accepted: " << body;
  return {};
}

TEST(ReadingRules, BadRuleFilesAreRejectedAtTheirLines) {
  const auto expect = [](const std::string& body, const std::string& part) {
    const std::string what = load_error(body);
    EXPECT_NE(what.find(part), std::string::npos) << "message: " << what << "\nexpected: " << part;
  };
  expect("  - name: a\n    contains: [x]\n    set: {training: {moe_dispatch: flex}}\n", "moe_dispatch: unknown key");
  expect("  - name: a\n    contains: [x]\n    set: {training: {moe_dispatcher: deepep}}\n", "must be alltoall or flex");
  expect("  - name: a\n    contains: [DeepEP]\n    set: {training: {moe_dispatcher: flex}}\n", "must be non-empty and lower-case");
  expect("  - name: a\n    set: {training: {moe_dispatcher: flex}}\n", "looks for nothing");
  expect("  - name: a\n    number_after: \"etp=\"\n    set: {parallelism: {expert_tp: 2}}\n",
         "$number appears in set exactly when number_after is given");
  expect("  - name: a\n    contains: [x]\n    colour: red\n    set: {training: {fp8_params: true}}\n", ":6:5:");
  expect("  - name: a\n    contains: [x]\n    colour: red\n    set: {training: {fp8_params: true}}\n", "colour: unknown key");
}

}  // namespace
}  // namespace cs
