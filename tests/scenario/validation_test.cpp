// Validation rows: parsing, skip reasons, and the accuracy bound on the public development set.
#include "sim/scenario/validation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

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

TEST(Validation, RejectsAFileWithoutTheColumns) {
  const CsvTable t = CsvTable::parse("a,b\n1,2\n", "x.csv");
  EXPECT_THROW((void)validate(t), InputError);
}

// The accuracy claim of docs/validation.md, held as a regression bound: MAPE at most 10% over the public rows,
// with at least 40 of them predicted. The shared development set sits beside the repository.
TEST(Validation, PublicRowsStayWithinTenPercentMape) {
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
  EXPECT_LE(sum / n, 0.10) << "MAPE " << 100 * sum / n << "% over " << n << " rows";
}

}  // namespace
}  // namespace cs
