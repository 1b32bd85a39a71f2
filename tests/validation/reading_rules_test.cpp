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

RowStack stack_of(const std::map<std::string, std::string>& cells) {
  return ReadingRules::shipped().read_stack(
      [&](const std::string& c) {
        const auto it = cells.find(c);
        return it == cells.end() ? std::string() : it->second;
      },
      false);
}

TrainingConfig stack_training(const std::map<std::string, std::string>& cells, const RowOverlay& row = {}) {
  ParallelPlan p;
  TrainingConfig t;
  (void)apply_stack(stack_of(cells), row, "rules.yaml", p, t);
  return t;
}

TEST(ReadingRules, TheFrameworkStackFromTheFrameworkAndReleaseCells) {
  // The traits of each family.
  const RowStack bridge = stack_of({{"framework", "Megatron-Bridge / NeMo 25.11"}, {"source", "performance summary"}});
  EXPECT_TRUE(bridge.has("nvidia_recipes"));
  EXPECT_TRUE(bridge.has("distributed_optimizer"));
  EXPECT_TRUE(bridge.has("megatron_layouts"));
  EXPECT_TRUE(bridge.has("release_recipes"));
  // The release recipes are looked up by the cells their rule read, as written (source, then framework).
  EXPECT_EQ(bridge.text("release_recipes"), "performance summary Megatron-Bridge / NeMo 25.11 ");
  const RowStack core = stack_of({{"framework", "Megatron-Core r0.8.0"}});
  EXPECT_TRUE(core.has("distributed_optimizer"));
  EXPECT_FALSE(core.has("nvidia_recipes"));
  EXPECT_FALSE(core.has("release_recipes"));
  const RowStack deepspeed = stack_of({{"framework", "Megatron-DeepSpeed"}});
  EXPECT_TRUE(deepspeed.has("megatron_layouts"));
  EXPECT_FALSE(deepspeed.has("distributed_optimizer"));
  EXPECT_TRUE(stack_of({{"framework", "metaseq"}}).traits.empty());
  // Transformer Engine's release: a container up to 25.12 is a 2025 stack whatever else is named; a 2026 container,
  // a later Megatron-Core or a commit is a 2026 one; a stack named by neither is the measured 2025 one; a framework
  // outside Megatron keeps eager PyTorch's costs.
  EXPECT_EQ(stack_training({{"framework", "Megatron-Bridge / NeMo 25.09"}}).framework, "megatron-core-te-2025");
  EXPECT_EQ(stack_training({{"framework", "Megatron-Bridge / NeMo 26.02.01"}}).framework, "megatron-core-te-2026");
  EXPECT_EQ(stack_training({{"framework", "Megatron-Bridge (main @ 3a9559f012)"}}).framework, "megatron-core-te-2026");
  EXPECT_EQ(stack_training({{"framework", "Megatron-Core 0.16"}}).framework, "megatron-core-te-2026");
  EXPECT_EQ(stack_training({{"framework", "NeMo/Megatron-Core (MLPerf implementation)"}}).framework,
            "megatron-core-te-2025");
  EXPECT_EQ(stack_training({{"framework", "NeMo 24.07"}, {"source_locator", "Megatron-Core 0.16 notes"}}).framework,
            "megatron-core-te-2025");
  EXPECT_EQ(stack_of({{"framework", "metaseq"}}).settings.size(), 1u);  // the file's defaults alone
  EXPECT_EQ(stack_training({{"framework", "metaseq"}}).framework, "pytorch-eager");
  // Megatron-LM of 2021-23 ran with its defaults of then, which a row's own words replace; what it says of a
  // default the row replaces is not said.
  const TrainingConfig legacy = stack_training({{"framework", "Megatron-LM (2022)"}});
  EXPECT_EQ(legacy.attention, AttentionKernel::unfused);
  EXPECT_FALSE(legacy.overlap.pp_comm);
  EXPECT_FALSE(legacy.overlap.grad_reduce);
  EXPECT_FALSE(legacy.overlap.param_gather);
  EXPECT_TRUE(stack_training({{"framework", "Megatron-LM (2024)"}}).overlap.grad_reduce);
  EXPECT_TRUE(stack_training({{"framework", "NeMo / Megatron-LM 2023"}}).overlap.pp_comm);
  const RowOverlay flash = read_row({{"notes", "--use-flash-attn"}}, false);
  ParallelPlan p;
  TrainingConfig t;
  const auto says = apply_stack(stack_of({{"framework", "Megatron-LM (2023)"}}), flash, "rules.yaml", p, t);
  EXPECT_EQ(says, (std::vector<std::string>{"pipeline sends block the stage (batched P2P with a device synchronise)",
                                            "DP gradient reduction and parameter gather not overlapped"}));
  apply_overlay(flash, "rules.yaml", p, t);
  EXPECT_EQ(t.attention, AttentionKernel::flash);
}

std::string rules_file(const std::string& body) {
  const auto path = testing::temp_file("reading_rules", ".yaml");
  std::ofstream(path, std::ios::binary)
      << "recipe_aspects: {read: [notes], a2a_overlap: [a2a], dispatcher: [deepep], cuda_graphs: [cuda graph]}\n"
         "read: [notes]\n"
         "defaults: {training: {framework: pytorch-eager}}\n"
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
  expect("  - name: a\n    contains: [x]\n    colour: red\n    set: {training: {fp8_params: true}}\n", ":7:5:");
  expect("  - name: a\n    contains: [x]\n    colour: red\n    set: {training: {fp8_params: true}}\n", "colour: unknown key");
  expect("  - name: a\n    contains: [x]\n    traits: [nvidia_recipes]\n    set: {training: {fp8_params: true}}\n",
         "only a stack rule (phase: stack) names traits");
  expect("  - name: a\n    phase: stack\n    contains: [x]\n    traits: [fast]\n", "unknown trait \"fast\"");
  expect("  - name: a\n    phase: stack\n    release: {through: \"2025\"}\n    traits: [nvidia_recipes]\n",
         "must be a container release YY.MM");
  expect("  - name: a\n    phase: stack\n    contains: [x]\n", "missing key \"set\"");
}

}  // namespace
}  // namespace cs
