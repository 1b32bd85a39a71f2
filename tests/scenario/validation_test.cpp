// Validation rows: parsing, skip reasons, and the accuracy bound on the public development set.
#include "sim/scenario/validation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

namespace cs {
namespace {

std::string header() {
  std::string h;
  for (const auto& c : validation_columns()) h += (h.empty() ? "" : ",") + c;
  return h + "\n";
}

/// One CSV row with the given cells set (by column name) and the rest empty.
std::string row(const std::map<std::string, std::string>& cells) {
  std::string r;
  bool first = true;
  for (const auto& c : validation_columns()) {
    if (!first) r += ",";
    first = false;
    const auto it = cells.find(c);
    if (it != cells.end()) r += "\"" + it->second + "\"";
  }
  return r + "\n";
}

TEST(Validation, PredictsAStepTimeRowAndExplainsSkippedOnes) {
  const std::map<std::string, std::string> good{
      {"row_id", "1"}, {"source", "test"}, {"hardware", "H100 SXM"}, {"gpu_count", "8"}, {"model", "GPT 1.3B"},
      {"num_layers", "24"}, {"hidden_size", "2048"}, {"num_heads", "16"}, {"vocab_size", "51200"},
      {"seq_len", "2048"}, {"tp", "1"}, {"pp", "1"}, {"global_batch_seqs", "64"}, {"micro_batch", "2"},
      {"precision", "bf16"}, {"meas_step_time_s", "1.0"}};
  auto no_layout = good;
  no_layout["row_id"] = "2";
  no_layout.erase("tp");
  no_layout.erase("pp");
  auto unknown_hw = good;
  unknown_hw["row_id"] = "3";
  unknown_hw["hardware"] = "TPU v5p";
  auto bad_batch = good;
  bad_batch["row_id"] = "4";
  bad_batch["global_batch_seqs"] = "63";
  const CsvTable t = CsvTable::parse(header() + row(good) + row(no_layout) + row(unknown_hw) + row(bad_batch), "rows.csv");
  const auto rows = validate(t);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_FALSE(rows[0].skipped.has_value());
  EXPECT_EQ(rows[0].quantity, "step_time_s");
  EXPECT_GT(rows[0].predicted, 0.0);
  EXPECT_DOUBLE_EQ(rows[0].error(), (rows[0].predicted - 1.0) / 1.0);
  ASSERT_TRUE(rows[1].skipped.has_value());
  EXPECT_NE(rows[1].skipped->find("parallel layout"), std::string::npos);
  ASSERT_TRUE(rows[2].skipped.has_value());
  EXPECT_NE(rows[2].skipped->find("no device profile"), std::string::npos);
  ASSERT_TRUE(rows[3].skipped.has_value());
  EXPECT_NE(rows[3].skipped->find("not a multiple"), std::string::npos);
}

// A row the planner rejects (here 4 layers cannot fill 8 pipeline stages) is skipped with the planner's reason;
// the rows before and after it are still predicted.
TEST(Validation, OneUnplannableRowDoesNotStopTheBatch) {
  const std::map<std::string, std::string> good{
      {"row_id", "1"}, {"source", "test"}, {"hardware", "H100 SXM"}, {"gpu_count", "8"}, {"model", "GPT 1.3B"},
      {"num_layers", "24"}, {"hidden_size", "2048"}, {"num_heads", "16"}, {"vocab_size", "51200"},
      {"seq_len", "2048"}, {"tp", "1"}, {"pp", "1"}, {"global_batch_seqs", "64"}, {"micro_batch", "2"},
      {"precision", "bf16"}, {"meas_step_time_s", "1.0"}};
  auto too_deep = good;
  too_deep["row_id"] = "2";
  too_deep["num_layers"] = "4";
  too_deep["pp"] = "8";
  too_deep["global_batch_seqs"] = "16";
  auto after = good;
  after["row_id"] = "3";
  const CsvTable t = CsvTable::parse(header() + row(good) + row(too_deep) + row(after), "rows.csv");
  const auto rows = validate(t);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_FALSE(rows[0].skipped.has_value());
  ASSERT_TRUE(rows[1].skipped.has_value());
  EXPECT_NE(rows[1].skipped->find("parallelism.pp"), std::string::npos) << *rows[1].skipped;
  EXPECT_FALSE(rows[2].skipped.has_value());
  EXPECT_DOUBLE_EQ(rows[2].predicted, rows[0].predicted);  // same configuration, same simulated step
}

// gpu_count 1 on a 1-GPU machine: simulated on one GPU of a DGX H100 node, with the step of a single GPU
// (no data-parallel reduction). Tokens per step are 8 x 2048, so tokens/s per GPU = 16384 / step time.
TEST(Validation, SingleGpuRowRuns) {
  const std::map<std::string, std::string> one{
      {"row_id", "1"}, {"source", "test"}, {"hardware", "H100 SXM"}, {"gpu_count", "1"}, {"gpus_per_node", "1"},
      {"model", "GPT 125M"}, {"num_layers", "12"}, {"hidden_size", "768"}, {"num_heads", "12"},
      {"vocab_size", "50304"}, {"seq_len", "2048"}, {"tp", "1"}, {"pp", "1"}, {"global_batch_seqs", "8"},
      {"micro_batch", "8"}, {"precision", "bf16"}, {"meas_tokens_per_s_per_gpu", "100000"}};
  const auto rows = validate(CsvTable::parse(header() + row(one), "one.csv"));
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_FALSE(rows[0].skipped.has_value()) << *rows[0].skipped;
  EXPECT_EQ(rows[0].gpus, 1);
  EXPECT_GT(rows[0].predicted, 0.0);
  bool part_of_node = false;
  for (const auto& a : rows[0].assumptions) part_of_node |= a.find("part of one 8-GPU node") != std::string::npos;
  EXPECT_TRUE(part_of_node);
}

TEST(Validation, RejectsAFileWithoutTheColumns) {
  const CsvTable t = CsvTable::parse("a,b\n1,2\n", "x.csv");
  EXPECT_THROW((void)validate(t), InputError);
}

// The accuracy claim of docs/validation.md, held as a regression bound over the public rows, with at least 40 of
// them predicted. The shared development set sits beside the repository. The file stands at 8.5% with the H100
// rows priced at sustained, power-capped clocks (the H200's measured fits and power model, same GH100 die); it
// was 10.1% on the burst-clock H100 datasheet profile. The bound is 9%.
TEST(Validation, PublicRowsStayWithinMapeBound) {
  const std::filesystem::path csv = std::filesystem::path(CS_SOURCE_DIR) / ".." / "shared" / "validation" / "public_rows.csv";
  if (!std::filesystem::exists(csv)) GTEST_SKIP() << "no " << csv << " beside the repository";
  const auto rows = validate(CsvTable::load(csv.string()));
  double sum = 0;
  int n = 0;
  for (const auto& r : rows) {
    if (r.skipped) continue;
    sum += std::fabs(r.error());
    ++n;
  }
  EXPECT_GE(n, 40);
  EXPECT_LE(sum / n, 0.09) << "MAPE " << 100 * sum / n << "% over " << n << " rows";
}

// Bounds for the modern rows with the H100 at sustained clocks (profile h100-sxm), the eager host-issue model and
// Transformer Engine's grouped operators launched from native loops (H200 run 12): 20.8% over all nine rows, 5.5%
// over the six dense ones. The dense rows are held to 6.5%; the MoE rows miss the 10% target (Qwen3-30B-A3B is
// +118%: Megatron-Bridge 25.11's dropless schedule, which its issue #1998 calls a 2x regression, and which the
// same layout's other published runs do not show; DeepSeek-V3 -25%: docs/validation.md, "Not done"), so the
// overall bound is a regression guard.
constexpr double MODERN_MAPE_BOUND = 0.21;
constexpr double MODERN_DENSE_MAPE_BOUND = 0.065;

// The modern rows (2023-25 recipes: fp8, uneven pipelines, MoE folding, CP): every row is predicted, none
// aborts, and the configurations that ran in production (Nemotron-4 340B on 256 H100 in bf16 and fp8, Llama 3.1
// 405B on 512 H100 with CP 2 and fp8 parameters) fit in memory. The MAPE bound is MODERN_MAPE_BOUND below.
TEST(Validation, ModernRowsAllPredictedAndProductionRunsFit) {
  const std::filesystem::path csv = std::filesystem::path(CS_SOURCE_DIR) / ".." / "shared" / "validation" / "modern_rows.csv";
  if (!std::filesystem::exists(csv)) GTEST_SKIP() << "no " << csv << " beside the repository";
  const auto rows = validate(CsvTable::load(csv.string()));
  double sum = 0, dense_sum = 0;
  int n = 0, dense = 0;
  for (const auto& r : rows) {
    ASSERT_FALSE(r.skipped.has_value()) << "row " << r.id << ": " << *r.skipped;
    sum += std::fabs(r.error());
    ++n;
    if (!r.moe) {
      dense_sum += std::fabs(r.error());
      ++dense;
    }
    if (r.id == "80" || r.id == "140" || r.id == "144") {
      for (const auto& a : r.assumptions) EXPECT_EQ(a.find("OUT OF MEMORY"), std::string::npos) << "row " << r.id;
    }
    EXPECT_TRUE(r.band.valid()) << "row " << r.id;
  }
  EXPECT_EQ(n, 9);
  EXPECT_LE(dense_sum / dense, MODERN_DENSE_MAPE_BOUND) << "dense MAPE " << 100 * dense_sum / dense << "% over " << dense;
  EXPECT_LE(sum / n, MODERN_MAPE_BOUND) << "MAPE " << 100 * sum / n << "% over " << n << " rows";
}

// Megatron-Bridge's other H100 runs of Qwen3-30B-A3B and Qwen3-235B-A22B (data/checks/megatron_bridge_h100_moe.csv,
// outside the shared files): 16.1% with Transformer Engine's grouped operators launched from native loops (H200
// run 12), token dropping where the run dropped and the flex dispatcher where the recipe used HybridEP; 21.7% when
// every per-expert launch cost an eager PyTorch operator. The 26.02.01 Qwen3-30B-A3B run is within 6.4% (it was
// -38%). A regression guard for the fine-grained MoE layer.
TEST(Validation, MegatronBridgeH100MoeChecks) {
  const auto csv = std::filesystem::path(CS_SOURCE_DIR) / "data" / "checks" / "megatron_bridge_h100_moe.csv";
  const auto rows = validate(CsvTable::load(csv.string()));
  double sum = 0;
  int n = 0;
  for (const auto& r : rows) {
    ASSERT_FALSE(r.skipped.has_value()) << "row " << r.id << ": " << *r.skipped;
    sum += std::fabs(r.error());
    ++n;
    if (r.id == "c2") {
      EXPECT_LT(std::fabs(r.error()), 0.08);
    }
    // The 25.09 runs say "(tokendrop)" in the model's name: token dropping at Megatron-Core's capacity factor 1.0.
    const bool drops = std::find(r.assumptions.begin(), r.assumptions.end(),
                                 "token dropping at capacity factor 1.0 (padded)") != r.assumptions.end();
    EXPECT_EQ(drops, r.id == "c1" || r.id == "c4") << "row " << r.id;
  }
  EXPECT_EQ(n, 5);
  EXPECT_LE(sum / n, 0.17) << "MAPE " << 100 * sum / n << "% over " << n << " rows";
}

}  // namespace
}  // namespace cs
