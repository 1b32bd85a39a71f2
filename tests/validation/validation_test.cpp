// Validation rows: parsing, skip reasons, and the accuracy bound on the public development set.
#include "sim/validation/validation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "validation_csv.hpp"

namespace cs {
namespace {

std::string header() { return testing::csv_header(); }
std::string row(const testing::Cells& cells) { return testing::csv_row(cells); }

TEST(Validation, PredictsAStepTimeRowAndExplainsSkippedOnes) {
  const testing::Cells good = testing::small_gpt_row();
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
  const testing::Cells good = testing::small_gpt_row();
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

// A small batch's bands: two rows alone give each other one residual, too few for a 90% band (a band from one
// ratio has zero width). With earlier residuals of other rows the band rests on those too; an earlier residual
// of a row in the batch (same id and source) is left out, so a row never bounds itself.
TEST(Validation, BandsOfASmallBatchRestOnEarlierResidualsOfOtherRows) {
  const testing::Cells a = testing::small_gpt_row();
  auto b = a;
  b["row_id"] = "2";
  const CsvTable t = CsvTable::parse(header() + row(a) + row(b), "rows.csv");
  const auto alone = validate(t);
  ASSERT_EQ(alone.size(), 2u);
  EXPECT_FALSE(alone[0].band.valid()) << alone[0].band.low << "-" << alone[0].band.high;
  EXPECT_NE(alone[0].band.basis.find("only 1 validation rows"), std::string::npos) << alone[0].band.basis;

  // Earlier rows: five dense 16-bit rows 20% slow to 20% fast, and an earlier residual of row 1 itself at 10x,
  // which must not widen row 1's band (nor row 2's: it is this batch's row 1, predicted afresh).
  std::vector<Residual> prior;
  const double ratios[] = {0.8, 0.9, 1.0, 1.1, 1.2};
  for (int k = 0; k < 5; ++k) prior.push_back(Residual{"p" + std::to_string(k), ratios[k], false, false, 8, 0.0, "earlier"});
  prior.push_back(Residual{"1", 10.0, false, false, 8, 0.0, "test"});
  const auto with_prior = validate(t, 0.9, {}, prior);
  ASSERT_EQ(with_prior.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const ValidationRow& v = with_prior[i];
    ASSERT_TRUE(v.band.valid()) << v.band.basis;
    EXPECT_EQ(v.band.samples, 6);  // five earlier rows and the batch's other row, not the 10x one
    std::vector<Residual> expected(prior.begin(), prior.begin() + 5);
    for (const Residual& r : residuals_of({with_prior[1 - i]})) expected.push_back(r);
    const ErrorBand direct = error_band(v.predicted_step_s(), BandQuery{false, false, 8}, expected);
    EXPECT_DOUBLE_EQ(v.band.low, direct.low);
    EXPECT_DOUBLE_EQ(v.band.high, direct.high);
  }
}

// The export variants run on their parent's compute with NVLink cut to 400 GB/s: a TP 8 row, whose tensor-parallel
// collectives cross NVLink in every layer, is predicted on H800 (A800) with the same kernels as on H100 (A100)
// and a longer step.
TEST(Validation, ExportVariantsRunOnTheirParentsComputeWithLessNvlink) {
  const std::map<std::string, std::string> base{
      {"row_id", "1"}, {"source", "test"}, {"gpu_count", "8"}, {"model", "GPT 13B"}, {"num_layers", "40"},
      {"hidden_size", "5120"}, {"num_heads", "40"}, {"vocab_size", "51200"}, {"seq_len", "2048"}, {"tp", "8"},
      {"pp", "1"}, {"sequence_parallel", "yes"}, {"global_batch_seqs", "64"}, {"micro_batch", "1"},
      {"precision", "bf16"}, {"meas_step_time_s", "1.0"}};
  std::string csv = header();
  int id = 0;
  for (const char* hw : {"H100-SXM5-80GB", "H800 SXM5 80GB", "A100 SXM4 80GB", "A800 SXM4 80GB"}) {
    auto r = base;
    r["row_id"] = std::to_string(++id);
    r["hardware"] = hw;
    csv += row(r);
  }
  const auto rows = validate(CsvTable::parse(csv, "rows.csv"));
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& v : rows) ASSERT_FALSE(v.skipped.has_value()) << v.id << ": " << *v.skipped;
  // TP 8 all-reduces (reduce-scatter / all-gather with sequence parallelism) of 2048 x 5120 x 2 bytes per layer
  // pass at 200 GB/s instead of 450 (H800) and 300 (A800): the step is longer, the compute the same.
  EXPECT_GT(rows[1].predicted_step_s(), rows[0].predicted_step_s() * 1.02);
  EXPECT_GT(rows[3].predicted_step_s(), rows[2].predicted_step_s() * 1.02);
  EXPECT_EQ(rows[1].step.breakdown.compute, rows[0].step.breakdown.compute);
  EXPECT_EQ(rows[3].step.breakdown.compute, rows[2].step.breakdown.compute);
}

// Parts whose names contain an SXM part's (GH200 contains "H200") but whose memory, power and nodes differ are
// skipped with that reason rather than priced as the SXM part.
TEST(Validation, LookAlikeHopperPartsAreSkippedNotMispriced) {
  const testing::Cells base = testing::edited(testing::small_gpt_row(), {}, {"hardware"});
  std::string csv = header();
  const char* parts[] = {"GH200 96GB (Alps)", "H100 PCIe 80GB", "H100 NVL 94GB", "H100-SXM5-80GB"};
  int id = 0;
  for (const char* hw : parts) {
    auto r = base;
    r["row_id"] = std::to_string(++id);
    r["hardware"] = hw;
    csv += row(r);
  }
  const auto rows = validate(CsvTable::parse(csv, "rows.csv"));
  ASSERT_EQ(rows.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(rows[static_cast<std::size_t>(i)].skipped.has_value()) << parts[i];
    EXPECT_NE(rows[static_cast<std::size_t>(i)].skipped->find("no device profile"), std::string::npos);
  }
  EXPECT_FALSE(rows[3].skipped.has_value());
}

// Blackwell's precision names: MXFP8 ("MXFP8", "FP8-MX") is block-scaled fp8 (DType::mxfp8) with one-pass casts,
// at its own kernels' rate (not bf16, which its name does not start with; not current scaling's two passes). On
// a part without MXFP8 tensor cores (this H100) it is skipped with the reason, as NVFP4 is without an fp4 peak;
// MXFP4 anywhere is skipped too. On a B200 MXFP8 runs between per-tensor fp8 and bf16: its kernels reach 0.918 of
// bf16's fraction of peak, per-tensor fp8's 0.966 (TE's GEMM profiling guide on a B300).
TEST(Validation, BlockScaledFp8IsItsOwnFormatAndFp4NeedsAnFp4Part) {
  std::string csv = header();
  const char* precisions[] = {"bf16", "fp8", "FP8-CS", "MXFP8", "FP8-MX", "NVFP4", "MXFP4"};
  int id = 0;
  for (const char* prec : precisions) {
    csv += row(testing::edited(testing::small_gpt_row(), {{"row_id", std::to_string(++id)}, {"precision", prec}}));
  }
  for (const char* prec : {"bf16", "fp8", "MXFP8", "FP8-MX"}) {
    csv += row(testing::edited(testing::small_gpt_row(),
                               {{"row_id", std::to_string(++id)}, {"precision", prec}, {"hardware", "B200 (DGX-B200)"}}));
  }
  const auto rows = validate(CsvTable::parse(csv, "rows.csv"));
  ASSERT_EQ(rows.size(), 11u);
  for (int i : {0, 1, 2, 7, 8, 9, 10}) ASSERT_FALSE(rows[static_cast<std::size_t>(i)].skipped.has_value()) << i;
  EXPECT_LT(rows[1].predicted_step_s(), rows[0].predicted_step_s() * 0.95);  // fp8 is faster than bf16 here
  EXPECT_GT(rows[2].predicted_step_s(), rows[1].predicted_step_s());  // current scaling's amax pass costs more
  for (int i : {3, 4}) {
    ASSERT_TRUE(rows[static_cast<std::size_t>(i)].skipped.has_value()) << precisions[i];
    EXPECT_NE(rows[static_cast<std::size_t>(i)].skipped->find("no mxfp8 peak"), std::string::npos)
        << *rows[static_cast<std::size_t>(i)].skipped;
  }
  ASSERT_TRUE(rows[5].skipped.has_value());
  EXPECT_NE(rows[5].skipped->find("no fp4 peak"), std::string::npos) << *rows[5].skipped;
  ASSERT_TRUE(rows[6].skipped.has_value());
  EXPECT_NE(rows[6].skipped->find("only NVFP4"), std::string::npos) << *rows[6].skipped;
  // B200: bf16, fp8, MXFP8, FP8-MX.
  EXPECT_DOUBLE_EQ(rows[10].predicted_step_s(), rows[9].predicted_step_s());
  EXPECT_GT(rows[9].predicted_step_s(), rows[8].predicted_step_s());
  EXPECT_LT(rows[9].predicted_step_s(), rows[7].predicted_step_s());
  EXPECT_TRUE(rows[9].fp8);  // a quantised recipe, for the error bands
}

// FP8 block scaling runs natively on Hopper but as MXFP8 kernels on Blackwell (Transformer Engine emulates it
// there): a B200 row in blockwise fp8 is priced as MXFP8, an H100 row as fp8.
TEST(Validation, BlockwiseFp8RunsAsMxfp8OnBlackwell) {
  std::string csv = header();
  int id = 0;
  for (const char* hw : {"B200 (DGX-B200)", "H100-SXM5-80GB"}) {
    for (const char* prec : {"FP8 (blockwise)", "MXFP8", "FP8"}) {
      csv += row(testing::edited(testing::small_gpt_row(),
                                 {{"row_id", std::to_string(++id)}, {"precision", prec}, {"hardware", hw}}));
    }
  }
  const auto rows = validate(CsvTable::parse(csv, "rows.csv"));
  ASSERT_EQ(rows.size(), 6u);
  const auto said = [](const ValidationRow& r) {
    return std::find(r.assumptions.begin(), r.assumptions.end(),
                     "FP8 block scaling on Blackwell: MXFP8 kernels (Transformer Engine emulates it with them)") !=
           r.assumptions.end();
  };
  for (int i : {0, 1, 2, 3, 5}) ASSERT_FALSE(rows[static_cast<std::size_t>(i)].skipped.has_value()) << i;
  EXPECT_TRUE(said(rows[0]));
  EXPECT_DOUBLE_EQ(rows[0].predicted_step_s(), rows[1].predicted_step_s());
  EXPECT_GT(rows[0].predicted_step_s(), rows[2].predicted_step_s());
  EXPECT_FALSE(said(rows[3]));
  EXPECT_DOUBLE_EQ(rows[3].predicted_step_s(), rows[5].predicted_step_s());
  ASSERT_TRUE(rows[4].skipped.has_value());  // MXFP8 on an H100
}

// fp8 attention where the row states it (fp8_dot_product_attention): on a B200 at cuDNN's measured speed-up over
// 16-bit, so the step is shorter; on an H100, whose profile has no fp8 attention rate, priced as 16-bit and said so.
// A negated statement ("no fp8 attention") is not one.
TEST(Validation, StatedFp8AttentionRunsAtItsMeasuredRate) {
  std::string csv = header();
  int id = 0;
  for (const char* hw : {"B200 (DGX-B200)", "H100-SXM5-80GB"}) {
    for (const char* notes : {"", "fp8_dot_product_attention", "no fp8 attention"}) {
      csv += row(testing::edited(testing::small_gpt_row(), {{"row_id", std::to_string(++id)}, {"precision", "fp8"},
                                                             {"hardware", hw}, {"notes", notes}}));
    }
  }
  const auto rows = validate(CsvTable::parse(csv, "rows.csv"));
  ASSERT_EQ(rows.size(), 6u);
  for (const auto& r : rows) ASSERT_FALSE(r.skipped.has_value()) << r.id << ": " << *r.skipped;
  const auto said = [](const ValidationRow& r, const char* what) {
    return std::find(r.assumptions.begin(), r.assumptions.end(), std::string(what)) != r.assumptions.end();
  };
  EXPECT_TRUE(said(rows[1], "fp8 attention at cuDNN's measured speed-up over 16-bit"));
  EXPECT_LT(rows[1].predicted_step_s(), rows[0].predicted_step_s());
  EXPECT_DOUBLE_EQ(rows[2].predicted_step_s(), rows[0].predicted_step_s());
  EXPECT_TRUE(said(rows[4], "fp8 attention stated; no measured fp8 attention rate for this GPU: priced as 16-bit"));
  EXPECT_DOUBLE_EQ(rows[4].predicted_step_s(), rows[3].predicted_step_s());
  EXPECT_DOUBLE_EQ(rows[5].predicted_step_s(), rows[3].predicted_step_s());
  // MXFP8 with 128-wide heads has a measured rate on Blackwell (1.00x 16-bit's): measured, not missing.
  const auto mx = validate(CsvTable::parse(
      header() + row(testing::edited(testing::small_gpt_row(), {{"row_id", "7"}, {"precision", "MXFP8"},
                                                                {"hardware", "B200 (DGX-B200)"},
                                                                {"notes", "fp8_dot_product_attention"}})),
      "rows.csv"));
  ASSERT_EQ(mx.size(), 1u);
  ASSERT_FALSE(mx[0].skipped.has_value()) << *mx[0].skipped;
  EXPECT_TRUE(said(mx[0], "fp8 attention at cuDNN's measured speed-up over 16-bit"));
}

// NVFP4 on Blackwell (profiles with an fp4 peak): every linear layer's GEMMs run at the fp4 peak times its
// efficiency, and each input is cast with a per-tensor amax pass, while attention, norms and the other
// bandwidth-bound kernels stay as they are. So a B200 step in NVFP4 is faster than in MXFP8, but by less than
// the fp4/MXFP8 rate ratio of the profile (9,000 x 0.43 against 4,500 x 0.60 TFLOP/s: 1.43x).
TEST(Validation, Nvfp4RunsItsGemmsAtTheFp4PeakAndKeepsTheRest) {
  std::string csv = header();
  const char* precisions[] = {"MXFP8", "NVFP4"};
  int id = 0;
  for (const char* prec : precisions) {
    csv += row(testing::edited(testing::small_gpt_row(),
                               {{"row_id", std::to_string(++id)}, {"precision", prec}, {"hardware", "B200 (DGX-B200)"}}));
  }
  const auto rows = validate(CsvTable::parse(csv, "rows.csv"));
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& r : rows) ASSERT_FALSE(r.skipped.has_value()) << *r.skipped;
  const double speedup = rows[0].predicted_step_s() / rows[1].predicted_step_s();
  EXPECT_GT(speedup, 1.05);
  EXPECT_LT(speedup, 9000.0 * 0.43 / (4500.0 * 0.60));
  EXPECT_TRUE(rows[1].fp8);  // a quantised recipe, for the error bands
  bool said = false;
  for (const auto& a : rows[1].assumptions) said = said || a.find("NVFP4") != std::string::npos;
  EXPECT_TRUE(said);
}

// Blackwell names: a B200 (any case) is priced with profiles/b200.yaml in DGX B200 nodes; a GB200 NVL72 with
// profiles/gb200.yaml (the same die at 1,200 W, higher peaks) in 64-GPU NVLink domains, never as a B200; Blackwell
// Ultra, whose names contain the others' (GB300 contains B300), as its own parts: a GB300 NVL72 with
// profiles/gb300.yaml in 64-GPU domains, an HGX B300 with profiles/b300.yaml in DGX B300 nodes, both 288 GB.
// Hopper names match in any case too.
TEST(Validation, BlackwellLookAlikesArePricedAsTheirOwnParts) {
  const testing::Cells base = testing::edited(testing::small_gpt_row(), {}, {"hardware"});
  const char* parts[] = {"GB200 NVL72", "GB300 NVL72", "HGX B300", "B200 (DGX-B200)", "b200 sxm", "h100 sxm5"};
  std::string csv = header();
  int id = 0;
  for (const char* hw : parts) csv += row(testing::edited(base, {{"row_id", std::to_string(++id)}, {"hardware", hw}}));
  const auto rows = validate(CsvTable::parse(csv, "rows.csv"));
  ASSERT_EQ(rows.size(), 6u);
  for (int i = 0; i < 6; ++i) ASSERT_FALSE(rows[static_cast<std::size_t>(i)].skipped.has_value()) << parts[i];
  EXPECT_DOUBLE_EQ(rows[4].predicted_step_s(), rows[3].predicted_step_s());
  EXPECT_LT(rows[3].predicted_step_s(), rows[5].predicted_step_s() * 0.8);  // a B200 step, not an H100's
  EXPECT_LT(rows[0].predicted_step_s(), rows[3].predicted_step_s());       // a GB200 step, not a B200's
  EXPECT_GT(rows[0].memory_capacity.value(), rows[3].memory_capacity.value());  // 186 GB against 180 GB
  // Blackwell Ultra: 288 GB each, never a GB200's 186 or a B200's 180; the same tensor peaks as the part it
  // succeeds, under a higher power limit (1,400 W against 1,200; 1,100 against 1,000), so never slower.
  for (int i : {1, 2}) {
    EXPECT_NEAR(rows[static_cast<std::size_t>(i)].memory_capacity.value(), 288e9, 1e9) << parts[i];
  }
  EXPECT_LE(rows[1].predicted_step_s(), rows[0].predicted_step_s());  // GB300 against GB200
  EXPECT_LE(rows[2].predicted_step_s(), rows[3].predicted_step_s());  // B300 against B200
  EXPECT_LT(rows[1].predicted_step_s(), rows[2].predicted_step_s());  // GB300's higher peaks against B300's
}

TEST(Validation, RejectsAFileWithoutTheColumns) {
  const CsvTable t = CsvTable::parse("a,b\n1,2\n", "x.csv");
  EXPECT_THROW((void)validate(t), InputError);
}

}  // namespace
}  // namespace cs
