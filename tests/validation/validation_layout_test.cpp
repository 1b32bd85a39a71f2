// What validate leaves to a publisher's tuning, chosen by the plan search (choose_fastest_plan): the layout of a
// row that states none, and the micro-batch of an FSDP row that states neither it nor its recompute. Also the
// MFU-only rows this makes comparable, and a global batch that does not divide over the data-parallel ranks.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "sim/validation/validation.hpp"
#include "sim/search/fastest_plan.hpp"
#include "validation_csv.hpp"

namespace cs {
namespace {

using testing::Cells;
using testing::csv_row;
using testing::edited;

std::vector<ValidationRow> run(const std::string& csv) {
  return validate(CsvTable::parse(testing::csv_header() + csv, "rows.csv"), 0.9,
                  [](Scenario& sc, const PlanFilter& keep) { return choose_fastest_plan(sc, keep); });
}

bool has(const ValidationRow& r, const std::string& what) {
  for (const auto& a : r.assumptions) {
    if (a.find(what) != std::string::npos) return true;
  }
  return false;
}

const Cells kGpt13{
    {"row_id", "1"}, {"source", "test"}, {"hardware", "H100 SXM"}, {"gpu_count", "16"}, {"model", "GPT 13B"},
    {"num_layers", "40"}, {"hidden_size", "5120"}, {"num_heads", "40"}, {"vocab_size", "51200"},
    {"seq_len", "2048"}, {"global_batch_seqs", "128"}, {"precision", "bf16"}, {"framework", "Megatron-Core"}};

// No TP/PP: the plan search's fastest layout (Megatron-Core: optimizer sharding at most), compared on MFU. The
// MFU is the model FLOP rate over the datasheet bf16 peak.
TEST(ValidationLayout, ARowWithoutALayoutRunsTheFastestPlanAndComparesMfu) {
  const Cells mfu = edited(kGpt13, {{"meas_mfu_pct", "45"}});
  const auto rows = run(csv_row(mfu));
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_FALSE(rows[0].skipped.has_value()) << *rows[0].skipped;
  EXPECT_EQ(rows[0].quantity, "mfu_pct");
  EXPECT_TRUE(has(rows[0], "layout not given: the fastest the plan search finds, tp"));
  EXPECT_TRUE(has(rows[0], "MFU of the datasheet bf16 peak (989 TFLOP/s)"));
  EXPECT_FALSE(has(rows[0], "micro-batch 1"));  // the search chose it
  EXPECT_GT(rows[0].predicted, 10.0);
  EXPECT_LT(rows[0].predicted, 80.0);
  EXPECT_DOUBLE_EQ(rows[0].error(), (rows[0].predicted - 45) / 45);

  // Without a chooser the same row is skipped, as before.
  const auto bare = validate(CsvTable::parse(testing::csv_header() + csv_row(mfu), "rows.csv"));
  ASSERT_TRUE(bare[0].skipped.has_value());
  EXPECT_NE(bare[0].skipped->find("parallel layout"), std::string::npos);
}

TEST(ValidationLayout, MfuIsTheModelFlopRateOverTheDatasheetPeak) {
  const Cells mfu = edited(kGpt13, {{"tp", "4"}, {"pp", "1"}, {"micro_batch", "1"}, {"meas_mfu_pct", "45"}});
  const Cells tflops = edited(mfu, {{"row_id", "2"}, {"meas_tflops_per_gpu", "400"}}, {"meas_mfu_pct"});
  const auto rows = run(csv_row(mfu) + csv_row(tflops));
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_FALSE(rows[0].skipped || rows[1].skipped);
  EXPECT_EQ(rows[0].quantity, "mfu_pct");
  EXPECT_EQ(rows[1].quantity, "tflops_per_gpu");
  EXPECT_NEAR(rows[0].predicted, 100 * rows[1].predicted / 989.4, 1e-9);  // profiles/h100-sxm.yaml's bf16 peak
  EXPECT_GT(rows[0].time_ratio(), 0.0);
}

// FSDP over 16 GPUs with TP 8 on a rate-per-GPU row: without a stated micro-batch the search picks the fastest
// that fits with the stated layout (each micro-batch gathers every parameter again, so one sequence per
// micro-batch pays the gathers 9 times per step), and a global batch that does not divide over DP 2 is rounded
// to the nearest multiple (17 -> 18). A step-time row with that batch is not compared.
TEST(ValidationLayout, FsdpRowGetsTheFastestMicroBatchThatFitsAndARoundedBatch) {
  const Cells fsdp{
      {"row_id", "1"}, {"source", "test"}, {"hardware", "A100-SXM4-80GB"}, {"gpu_count", "16"}, {"model", "GPT 13B"},
      {"num_layers", "40"}, {"hidden_size", "5120"}, {"num_heads", "40"}, {"vocab_size", "51200"},
      {"seq_len", "2048"}, {"tp", "8"}, {"zero_fsdp", "FSDP"}, {"global_batch_seqs", "17"}, {"precision", "bf16"},
      {"framework", "metaseq"}, {"meas_tflops_per_gpu", "150"}};
  const Cells stated = edited(fsdp, {{"row_id", "2"}, {"micro_batch", "1"}, {"act_recompute", "none"}});
  const Cells step = edited(fsdp, {{"row_id", "3"}, {"meas_step_time_s", "10"}}, {"meas_tflops_per_gpu"});
  const auto rows = run(csv_row(fsdp) + csv_row(stated) + csv_row(step));
  ASSERT_EQ(rows.size(), 3u);
  ASSERT_FALSE(rows[0].skipped.has_value()) << *rows[0].skipped;
  ASSERT_FALSE(rows[1].skipped.has_value()) << *rows[1].skipped;
  EXPECT_TRUE(has(rows[0], "global batch 17 taken as 18 (a multiple of micro-batch x DP 2"));
  EXPECT_TRUE(has(rows[0], "micro-batch and recompute not given: the fastest that fit under FSDP"));
  EXPECT_TRUE(has(rows[0], "tp8 cp1 pp1 vpp1 dp2"));
  EXPECT_FALSE(has(rows[0], "tp_comm"));
  EXPECT_FALSE(has(rows[1], "the fastest that fit"));
  EXPECT_GT(rows[0].predicted, rows[1].predicted);  // fewer, larger micro-batches: fewer parameter gathers
  ASSERT_TRUE(rows[2].skipped.has_value());
  EXPECT_NE(rows[2].skipped->find("not a multiple of micro-batch x DP (2)"), std::string::npos);
}

// A row naming its model without dimensions takes the preset of that name, which fills the rest.
TEST(ValidationLayout, ARowNamingAPresetWithoutDimensionsIsPredicted) {
  const Cells gpt20{
      {"row_id", "1"}, {"source", "test"}, {"hardware", "H100-SXM5-80GB"}, {"gpu_count", "16"}, {"model", "GPT3-20B"},
      {"seq_len", "2048"}, {"tp", "2"}, {"pp", "1"}, {"global_batch_seqs", "64"}, {"micro_batch", "2"},
      {"precision", "bf16"}, {"meas_tokens_per_s_per_gpu", "5000"}};
  const auto rows = run(csv_row(gpt20));
  ASSERT_FALSE(rows[0].skipped.has_value()) << *rows[0].skipped;
  EXPECT_TRUE(has(rows[0], "architecture of preset gpt3-20b"));
  EXPECT_TRUE(has(rows[0], "vocab 50304"));
  EXPECT_GT(rows[0].predicted, 0.0);
}

// A row that says its MoE all-to-all overlaps runs Megatron-Core's merged forward-backward schedule when its
// layout allows it (EP > 1, interleaving with PP > 1), and otherwise says the overlap is not modelled; either way
// the row is predicted, and with the step in CUDA graphs the overlap makes the interleaved row faster. (Launched
// eagerly, the merged schedule's host work per node can cost more than it hides on a model this small, as
// Megatron-Bridge found when it turned the overlap off for CPU overhead, PR #1760.)
// A 16-layer MoE model (64 experts, top-4) on 64 H100 with PP 2 x VPP 2 and EP 16.
const Cells kMoe{{"row_id", "1"}, {"source", "test"}, {"hardware", "H100 SXM"}, {"gpu_count", "64"},
                 {"model", "MoE 16L"}, {"num_layers", "16"}, {"hidden_size", "2048"}, {"num_heads", "16"},
                 {"vocab_size", "32000"}, {"seq_len", "4096"}, {"moe_experts", "64"}, {"moe_topk", "4"},
                 {"moe_ffn_hidden", "1024"}, {"tp", "1"}, {"pp", "2"}, {"dp", "32"}, {"ep", "16"},
                 {"vpp_interleave", "2"}, {"global_batch_seqs", "256"}, {"micro_batch", "1"}, {"precision", "bf16"},
                 {"framework", "Megatron-Core"}, {"meas_tokens_per_s_per_gpu", "10000"}};

TEST(ValidationLayout, AStatedEpOverlapRunsWhereMegatronCoreAllowsIt) {
  const Cells moe = edited(kMoe, {{"notes", "full-iteration CUDA graphs"}});
  const auto rows = run(csv_row(moe) +
                        csv_row(edited(moe, {{"row_id", "2"}, {"notes", "moe_a2a_overlap; full-iteration CUDA graphs"}})) +
                        csv_row(edited(moe, {{"row_id", "3"}, {"notes", "EP A2A overlap"}}, {"vpp_interleave"})));
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& r : rows) ASSERT_FALSE(r.skipped.has_value()) << r.id << ": " << *r.skipped;
  EXPECT_FALSE(has(rows[0], "overlap"));
  EXPECT_TRUE(has(rows[1], "EP all-to-all overlapped (merged forward-backward 1F1B)"));
  EXPECT_GT(rows[1].predicted, rows[0].predicted);
  EXPECT_TRUE(has(rows[2], "EP overlap stated but not modelled"));
}

// An overlap the row turns off is not one it states: "no EP overlap", "moe_a2a_overlap=False", "without EP
// overlap" and "EP overlap off" run the plain schedule, as a row that says nothing does.
TEST(ValidationLayout, ANegatedEpOverlapIsNotOne) {
  const Cells moe = edited(kMoe, {{"notes", "full-iteration CUDA graphs"}});
  std::string csv = csv_row(moe);
  int id = 1;
  for (const char* note : {"no EP overlap", "moe_a2a_overlap=False", "without EP overlap", "EP overlap off",
                           "moe_a2a_overlap: false"}) {
    csv += csv_row(edited(moe, {{"row_id", std::to_string(++id)}, {"notes", std::string(note) + "; full-iteration CUDA graphs"}}));
  }
  const auto rows = run(csv);
  ASSERT_EQ(rows.size(), 6u);
  for (const auto& r : rows) {
    ASSERT_FALSE(r.skipped.has_value()) << r.id << ": " << *r.skipped;
    EXPECT_FALSE(has(r, "overlap")) << r.id;
    EXPECT_EQ(r.predicted, rows[0].predicted) << r.id;
  }
}

// Token dropping and a flex dispatcher likewise: "no token dropping", "capacity factor none" and "not DeepEP" are
// dropless rows on NCCL's all-to-all.
TEST(ValidationLayout, NegatedTokenDroppingAndDispatcherAreNotStated) {
  const Cells moe = edited(kMoe, {{"notes", "full-iteration CUDA graphs"}});
  std::string csv = csv_row(moe) + csv_row(edited(moe, {{"row_id", "2"}, {"notes", "token dropping; DeepEP"}}));
  int id = 2;
  for (const char* note : {"no token dropping", "moe_expert_capacity_factor none", "not DeepEP", "without HybridEP"}) {
    csv += csv_row(edited(moe, {{"row_id", std::to_string(++id)}, {"notes", note}}));
  }
  const auto rows = run(csv);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_TRUE(has(rows[1], "token dropping at capacity factor 1.0 (padded)"));
  EXPECT_TRUE(has(rows[1], "flex dispatcher (DeepEP / HybridEP)"));
  for (std::size_t i : {0U, 2U, 3U, 4U, 5U}) {
    EXPECT_FALSE(has(rows[i], "token dropping")) << rows[i].id;
    EXPECT_FALSE(has(rows[i], "flex dispatcher")) << rows[i].id;
  }
}

// CUDA graphs the row turns off are not graphs: "no CUDA graphs", "CUDA graphs: none", "cuda_graph_impl=none" and
// "without CUDA graphs" launch eagerly, as a row that says nothing does; "full-iteration CUDA graphs" does not.
TEST(ValidationLayout, NegatedCudaGraphsLaunchEagerly) {
  std::string csv = csv_row(edited(kMoe, {{"notes", ""}}));
  int id = 1;
  for (const char* note : {"no CUDA graphs", "CUDA graphs: none", "cuda_graph_impl=none", "without CUDA graphs",
                           "full-iteration CUDA graphs"}) {
    csv += csv_row(edited(kMoe, {{"row_id", std::to_string(++id)}, {"notes", note}}));
  }
  const auto rows = run(csv);
  ASSERT_EQ(rows.size(), 6u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_FALSE(has(rows[i], "CUDA graphs: no eager launch costs")) << rows[i].id;
    EXPECT_EQ(rows[i].predicted, rows[0].predicted) << rows[i].id;
  }
  EXPECT_TRUE(has(rows[5], "CUDA graphs: no eager launch costs"));
}

// "DDP" in a NeMo / Megatron-Bridge row names the data-parallel wrapper (their tables write FSDP 0 as "use DDP"),
// so the recipes' distributed optimizer applies as for an empty cell; elsewhere DDP keeps every optimizer state.
TEST(ValidationLayout, DdpInAMegatronBridgeRowKeepsTheDistributedOptimizer) {
  const Cells bridge = edited(kMoe, {{"framework", "Megatron-Bridge / NeMo 25.11"}});
  const auto rows = run(csv_row(bridge) + csv_row(edited(bridge, {{"row_id", "2"}, {"zero_fsdp", "DDP"}})) +
                        csv_row(edited(bridge, {{"row_id", "3"}, {"zero_fsdp", "DDP"}, {"framework", "PyTorch DDP"}})));
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& r : rows) ASSERT_FALSE(r.skipped.has_value()) << r.id << ": " << *r.skipped;
  EXPECT_TRUE(has(rows[0], "distributed optimizer"));
  EXPECT_TRUE(has(rows[1], "distributed optimizer (DDP as the data-parallel wrapper)"));
  EXPECT_DOUBLE_EQ(rows[1].predicted, rows[0].predicted);
  EXPECT_FALSE(has(rows[2], "distributed optimizer"));
  // Unsharded Adam states: a longer optimizer step on every GPU.
  EXPECT_GT(rows[2].step.breakdown.optimizer, rows[0].step.breakdown.optimizer);
}

// Megatron-Core's recompute modules named in the recompute column run as such (only those, and the attention
// core where core_attn is named); a recompute cell without module names keeps its old reading.
TEST(ValidationLayout, NamedRecomputeModulesAreRecomputed) {
  const auto rows = run(csv_row(edited(kMoe, {{"act_recompute", "selective, recompute_modules moe_act, layernorm"}})) +
                        csv_row(edited(kMoe, {{"row_id", "2"}, {"act_recompute", "core_attn, mlp"}})) +
                        csv_row(edited(kMoe, {{"row_id", "3"}, {"act_recompute", "selective"}})));
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& r : rows) ASSERT_FALSE(r.skipped.has_value()) << r.id << ": " << *r.skipped;
  EXPECT_TRUE(has(rows[0], "recompute modules: layernorm, moe_act"));
  EXPECT_TRUE(has(rows[1], "recompute modules: mlp"));
  EXPECT_FALSE(has(rows[2], "recompute modules"));
  // Rerunning the two modules costs a little time, as the report says (under 5%).
  EXPECT_LT(rows[0].predicted, rows[2].predicted);
  EXPECT_GT(rows[0].predicted, 0.95 * rows[2].predicted);
}

// Launch costs: eager unless the row says the step runs in CUDA graphs; a row that says it has none, or captures
// some modules only, runs eagerly (and says why); the flex dispatcher is read whatever the case of its name.
TEST(ValidationLayout, CudaGraphsAndDispatcherAsTheRowStatesThem) {
  const auto rows = run(csv_row(kMoe) + csv_row(edited(kMoe, {{"row_id", "2"}, {"notes", "CUDA Graphs (full_iteration)"}})) +
                        csv_row(edited(kMoe, {{"row_id", "3"}, {"notes", "no CUDA Graphs"}})) +
                        csv_row(edited(kMoe, {{"row_id", "4"}, {"notes", "CUDA Graphs of attn, moe_router"}})) +
                        csv_row(edited(kMoe, {{"row_id", "5"}, {"notes", "moe_flex_dispatcher_backend hybridep"}})));
  ASSERT_EQ(rows.size(), 5u);
  for (const auto& r : rows) ASSERT_FALSE(r.skipped.has_value()) << r.id << ": " << *r.skipped;
  EXPECT_TRUE(has(rows[1], "CUDA graphs: no eager launch costs"));
  EXPECT_GT(rows[1].predicted, rows[0].predicted);  // no launch gaps: faster
  EXPECT_FALSE(has(rows[2], "CUDA graphs"));
  EXPECT_DOUBLE_EQ(rows[2].predicted, rows[0].predicted);
  // Per-module graphs: the captured modules cost the host one launch per stretch and leave no eager gap.
  EXPECT_TRUE(has(rows[3], "CUDA graphs of attn, moe_router: no eager host cost or gap there, the rest eager"));
  EXPECT_GT(rows[3].predicted, rows[0].predicted);
  EXPECT_LT(rows[3].predicted, rows[1].predicted);
  EXPECT_TRUE(has(rows[4], "flex dispatcher (DeepEP / HybridEP)"));
}

}  // namespace
}  // namespace cs
