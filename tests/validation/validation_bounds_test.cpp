// The accuracy bounds of docs/validation.md over the shared development rows and the checks outside them,
// validated as `clustersim validate` does: a row that states no layout runs the fastest one the plan search
// finds (choose_fastest_plan), so these tests sit with the search layer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "sim/validation/validation.hpp"
#include "sim/search/fastest_plan.hpp"

namespace cs {
namespace {

std::vector<ValidationRow> validate_as_cli(const std::filesystem::path& csv) {
  return validate(CsvTable::load(csv.string()), 0.9, [](Scenario& sc, const PlanFilter& keep) { return choose_fastest_plan(sc, keep); });
}

/// A check file under data/checks validated as the CLI does, for the files that may hold state-space hybrids: every
/// skipped row must be one (skipped for its Mamba layers), every predicted row must fit in memory and be within
/// `row_bound` (only its dense rows where `dense_rows_only`).
struct CheckFile {
  double mape = 0;
  int predicted = 0, hybrid = 0;
  std::vector<ValidationRow> rows;  ///< every row, for a test's own checks beside these
};
CheckFile check_file(const char* name, std::size_t rows_expected, double row_bound, bool dense_rows_only = false) {
  CheckFile c;
  c.rows = validate_as_cli(std::filesystem::path(CS_SOURCE_DIR) / "data" / "checks" / name);
  EXPECT_EQ(c.rows.size(), rows_expected);
  double sum = 0;
  for (const auto& r : c.rows) {
    if (r.skipped) {
      EXPECT_NE(r.skipped->find("state-space"), std::string::npos) << "row " << r.id << ": " << *r.skipped;
      ++c.hybrid;
      continue;
    }
    EXPECT_LE(r.memory.total().value(), r.memory_capacity.value()) << "row " << r.id;
    if (!dense_rows_only || !r.moe) {
      EXPECT_LT(std::fabs(r.error()), row_bound) << "row " << r.id << ": " << 100 * r.error() << "%";
    }
    sum += std::fabs(r.error());
    ++c.predicted;
  }
  c.mape = c.predicted > 0 ? sum / c.predicted : 0.0;
  return c;
}

// The accuracy claim of docs/validation.md, held as a regression bound over the public rows, with at least 46 of
// them predicted. The shared development set sits beside the repository. The file stands at 8.8% over 48 rows: 8.3%
// over the 44 it predicted before the MFU-only rows (55, 56: layout from the plan search), the FSDP row without a
// micro-batch (45) and the row naming a preset without dimensions (170) were predicted too. It was 10.1% on the
// burst-clock H100 datasheet profile. The bound is 9%.
TEST(Validation, PublicRowsStayWithinMapeBound) {
  const std::filesystem::path csv = std::filesystem::path(CS_SOURCE_DIR) / ".." / "shared" / "validation" / "public_rows.csv";
  if (!std::filesystem::exists(csv)) GTEST_SKIP() << "no " << csv << " beside the repository";
  const auto rows = validate_as_cli(csv);
  double sum = 0;
  int n = 0;
  for (const auto& r : rows) {
    if (r.skipped) continue;
    sum += std::fabs(r.error());
    ++n;
    // Every row is a run that happened, so it fits (Nemotron-4 340B on 128 H100, row 178, at 75.4 GiB of the
    // 79.2 GiB an H100 reports, was out of memory against the datasheet's 80e9 bytes).
    EXPECT_LE(r.memory.total().value(), r.memory_capacity.value()) << "row " << r.id;
  }
  EXPECT_GE(n, 46);
  EXPECT_LE(sum / n, 0.09) << "MAPE " << 100 * sum / n << "% over " << n << " rows";
}

// Bounds for the modern rows with the H100 at sustained clocks (profile h100-sxm), the eager host-issue model and
// Transformer Engine's grouped operators launched from native loops (H200 run 12): 8.9% over all nine rows since
// 2026-12-07, session 30 (18.1% before: Qwen3-30B-A3B, row 190, was +96% with the layout its summary table prints,
// 25.09's VP 24 and MBS 2; it runs its release's config, VP 12 and MBS 1, at +22%, and +12% with the calibration
// hosts' yardstick measured on three hosts), 4.9% over the six dense ones.
// The dense rows are held to 6.5%, all nine to the issue's 10% (DeepSeek-V3 stays -24%: docs/validation.md, "Not
// done").
constexpr double MODERN_MAPE_BOUND = 0.10;
constexpr double MODERN_DENSE_MAPE_BOUND = 0.065;

// The modern rows (2023-25 recipes: fp8, uneven pipelines, MoE folding, CP): every row is predicted, none
// aborts, and every one of these configurations, all of which ran (Nemotron-4 340B on 256 H100 in bf16 and fp8,
// Llama 3.1 405B on 512 H100 with CP 2 and fp8 parameters, Qwen3 with the distributed optimizer its recipes use
// behind "DDP"), fits in memory. The MAPE bound is MODERN_MAPE_BOUND below.
TEST(Validation, ModernRowsAllPredictedAndProductionRunsFit) {
  const std::filesystem::path csv = std::filesystem::path(CS_SOURCE_DIR) / ".." / "shared" / "validation" / "modern_rows.csv";
  if (!std::filesystem::exists(csv)) GTEST_SKIP() << "no " << csv << " beside the repository";
  const auto rows = validate_as_cli(csv);
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
    for (const auto& a : r.assumptions) EXPECT_EQ(a.find("OUT OF MEMORY"), std::string::npos) << "row " << r.id;
    EXPECT_LE(r.memory.total().value(), r.memory_capacity.value()) << "row " << r.id;
    EXPECT_TRUE(r.band.valid()) << "row " << r.id;
  }
  EXPECT_EQ(n, 9);
  EXPECT_LE(dense_sum / dense, MODERN_DENSE_MAPE_BOUND) << "dense MAPE " << 100 * dense_sum / dense << "% over " << dense;
  EXPECT_LE(sum / n, MODERN_MAPE_BOUND) << "MAPE " << 100 * sum / n << "% over " << n << " rows";
}

// Megatron-Bridge's other H100 runs of Qwen3-30B-A3B and Qwen3-235B-A22B (data/checks/megatron_bridge_h100_moe.csv,
// outside the shared files): 16.1% with Transformer Engine's grouped operators launched from native loops (H200
// run 12), token dropping where the run dropped and the flex dispatcher where the recipe used HybridEP; 21.7% when
// every per-expert launch cost an eager PyTorch operator; 12.7% since each row runs its release's layout where the
// table's matches no config (c2), 12.1% with the calibration hosts' yardstick over three hosts. A regression guard
// for the fine-grained MoE layer.
TEST(Validation, MegatronBridgeH100MoeChecks) {
  const auto csv = std::filesystem::path(CS_SOURCE_DIR) / "data" / "checks" / "megatron_bridge_h100_moe.csv";
  const auto rows = validate_as_cli(csv);
  double sum = 0;
  int n = 0;
  for (const auto& r : rows) {
    ASSERT_FALSE(r.skipped.has_value()) << "row " << r.id << ": " << *r.skipped;
    sum += std::fabs(r.error());
    ++n;
    if (r.id == "c2") {
      // The table states PP 2, VP 12, EP 8, which no config of 26.02.01 (v0.3.1) sets: its recipe's PP 1, EP 16
      // with HybridEP is simulated (+10.8%; -7.4% with the table's layout).
      EXPECT_TRUE(std::any_of(r.assumptions.begin(), r.assumptions.end(), [](const std::string& a) {
        return a.find("layout TP 1, PP 1, EP 16, MBS 1") != std::string::npos;
      })) << "row c2";
      EXPECT_LT(std::fabs(r.error()), 0.13);
    }
    // The 25.09 runs say "(tokendrop)" in the model's name: token dropping at Megatron-Core's capacity factor 1.0.
    const bool drops = std::find(r.assumptions.begin(), r.assumptions.end(),
                                 "token dropping at capacity factor 1.0 (padded)") != r.assumptions.end();
    EXPECT_EQ(drops, r.id == "c1" || r.id == "c4") << "row " << r.id;
    // Megatron-Bridge runs its layers through Transformer Engine: the host's work per operator of the row's
    // release (run 15 for the 2025 stacks, TE issue #2053's ratio for 2026's).
    EXPECT_TRUE(std::any_of(r.assumptions.begin(), r.assumptions.end(), [](const std::string& a) {
      return a.starts_with("Megatron-Core on Transformer Engine");
    })) << "row " << r.id;
  }
  EXPECT_EQ(n, 5);
  EXPECT_LE(sum / n, 0.16) << "MAPE " << 100 * sum / n << "% over " << n << " rows";
}

// Megatron-Bridge's dense H100 runs of Llama 3 70B (64 GPUs) and Llama 3.1 405B (1,024 GPUs, CP 2) in fp8, three
// releases each (data/checks/megatron_bridge_h100_dense.csv, outside the shared files, written down after the
// model): 5.5% over 6, -6.6% to +7.5%. The fp8 dense recipe at 64-1,024 GPUs, held within 10% each.
TEST(Validation, MegatronBridgeH100DenseChecks) {
  const auto csv = std::filesystem::path(CS_SOURCE_DIR) / "data" / "checks" / "megatron_bridge_h100_dense.csv";
  const auto rows = validate_as_cli(csv);
  ASSERT_EQ(rows.size(), 6u);
  double sum = 0;
  for (const auto& r : rows) {
    ASSERT_FALSE(r.skipped.has_value()) << "row " << r.id << ": " << *r.skipped;
    EXPECT_LT(std::fabs(r.error()), 0.10) << "row " << r.id << ": " << 100 * r.error() << "%";
    sum += std::fabs(r.error());
  }
  EXPECT_LE(sum / 6, 0.07) << "MAPE " << 100 * sum / 6 << "%";
}

// GPT-OSS 120B on 64 H100 in bf16 (data/checks/megatron_bridge_h100_gpt_oss.csv, three releases): rows that name
// the model take its preset's 64-wide heads, the 128-token window of every other layer, and what Megatron-Core
// does with its YaRN scaling (RoPE unfused) and its experts' biases (a per-expert loop in fp32). The model was
// 43-59% fast on them without the last two, and is 16-20% fast with them, priced as measured on an H100 (run 7;
// docs/validation.md, "GPT-OSS"); what Megatron spends beyond that is not found. Held within 25% each, 20% mean.
TEST(Validation, GptOssRowsRunWithTheirSlidingWindow) {
  const auto csv = std::filesystem::path(CS_SOURCE_DIR) / "data" / "checks" / "megatron_bridge_h100_gpt_oss.csv";
  const auto rows = validate_as_cli(csv);
  ASSERT_EQ(rows.size(), 3u);
  double sum = 0;
  for (const auto& r : rows) {
    ASSERT_FALSE(r.skipped.has_value()) << "row " << r.id << ": " << *r.skipped;
    EXPECT_NE(std::find(r.assumptions.begin(), r.assumptions.end(),
                        "as preset gpt-oss-120b: head_dim 64, sliding window 128 in all but every 2nd layer, "
                        "YaRN-scaled RoPE (unfused), expert biases, ffn"),
              r.assumptions.end())
        << "row " << r.id;
    EXPECT_LT(std::fabs(r.error()), 0.25) << "row " << r.id << ": " << 100 * r.error() << "%";
    for (const auto& a : r.assumptions) EXPECT_EQ(a.find("OUT OF MEMORY"), std::string::npos) << "row " << r.id;
    sum += std::fabs(r.error());
  }
  EXPECT_LE(sum / 3, 0.20) << "MAPE " << 100 * sum / 3 << "%";
}

// Megatron-Bridge's DGX B200 pre-training runs, every release 25.09-26.04.01 (data/checks/megatron_bridge_b200.csv,
// 31 rows, outside the shared files), priced with profiles/b200.yaml: datasheet peaks at the GEMM, attention and HBM
// efficiencies published B200 measurements give, no calibration of this project's. The dense fp8 runs (Llama 3 8B
// on 8, Llama 3.1 405B on 128 GPUs) were 8.7% fast on average at the published (burst-clock) rates; with the
// power-cap model anchored on a published B200 throttling measurement (2026-12-05, session 18) they are 5.2% slow,
// each within 10%. The MoE runs are 46.5% over 23 (docs/validation.md, "B200"): the dropless 25.11 and 26.02
// Qwen3-30B-A3B runs that Megatron-Bridge's issue #1998 calls a 2x regression and GPT-OSS stay fast (but
// b9, -32% at its release's EP 64). The dense
// rows are held within 12% each and 7% mean; the rest must run and fit, with the MAPE as a regression guard
// (44.5%; 43.6% with each release's recipe facts; 35.9% with the power-cap model; 28.8% since the host's speed and
// Transformer Engine's host work are priced, 2026-12-06; 28.6% with Blackwell's measured fp8 and MXFP8 kernel
// rates and blockwise fp8 run as MXFP8, dense 5.3% -> 2.3%).
TEST(Validation, MegatronBridgeB200Checks) {
  const auto csv = std::filesystem::path(CS_SOURCE_DIR) / "data" / "checks" / "megatron_bridge_b200.csv";
  const auto rows = validate_as_cli(csv);
  ASSERT_EQ(rows.size(), 31u);
  double sum = 0, dense_sum = 0;
  int dense = 0;
  for (const auto& r : rows) {
    ASSERT_FALSE(r.skipped.has_value()) << "row " << r.id << ": " << *r.skipped;
    EXPECT_LE(r.memory.total().value(), r.memory_capacity.value()) << "row " << r.id;
    sum += std::fabs(r.error());
    if (!r.moe) {
      EXPECT_LT(std::fabs(r.error()), 0.12) << "row " << r.id << ": " << 100 * r.error() << "%";
      dense_sum += std::fabs(r.error());
      ++dense;
    }
  }
  EXPECT_EQ(dense, 8);
  EXPECT_LE(dense_sum / dense, 0.07) << "dense MAPE " << 100 * dense_sum / dense << "%";
  EXPECT_LE(sum / 31, 0.37) << "MAPE " << 100 * sum / 31 << "%";
}

// NVIDIA's DGX Cloud benchmarking recipes (github NVIDIA/dgxc-benchmarking, tags v24.11.1-v26.06.01; every H100
// pre-training result its READMEs publish, one row per distinct measurement: data/checks/dgxc_benchmarking.csv,
// 240 rows outside the shared files, written 2026-12-05 with each recipe's facts from its launch scripts). Llama
// 3.1 8B/70B/405B, Nemotron-4 15B/340B, GPT-3 175B, Grok-1 314B, DeepSeek-V3 and Llama 4 Maverick on 8-2,304 GPUs
// in NeMo 24.05-25.07: 7.3% over 232 rows, with the 8 Nemotron-H 56B rows skipped until Mamba-2 layers were
// modelled (2026-12-06); 7.2% over all 240 since, the Nemotron-H rows -0.7% to -5.4%.
// Every predicted row must fit in memory: Nemotron-4 340B in bf16 on 128 GPUs (x153) did so only once the
// optimizer states its recipe keeps in bf16 (distributed_fused_adam, dtype bf16) were modelled (86.8 -> 69.8 GiB).
TEST(Validation, DgxcBenchmarkingChecks) {
  const CheckFile c = check_file("dgxc_benchmarking.csv", 240, 0.30);
  EXPECT_EQ(c.hybrid, 0);
  EXPECT_LE(c.mape, 0.08) << "MAPE " << 100 * c.mape << "% over " << c.predicted << " rows";
}

// The hybrid Mamba-Transformer rows, predicted untuned once the Mamba-2 mixer was priced (2026-12-06):
// Nemotron-H 56B on 32-2,048 H100 in fp8 (DGX Cloud recipes, NeMo 25.04) within -0.7% to -5.4%, each held within
// 8%; Nemotron 3 Nano (23 Mamba-2 mixers, 23 MoE MLPs, 6 attention layers) on 16 H100 in Megatron-Bridge
// 26.02-26.06 +11.4% to +15.8%, as fast as the other eager fine-grained MoE rows of those tables, held within 20%.
TEST(Validation, HybridMambaRowsArePredicted) {
  int nemotron_h = 0, nano = 0;
  for (const char* file : {"dgxc_benchmarking.csv", "megatron_bridge_h100_more.csv"}) {
    for (const auto& r : validate_as_cli(std::filesystem::path(CS_SOURCE_DIR) / "data" / "checks" / file)) {
      const bool h56 = r.model == "Nemotron-H 56B", is_nano = r.model == "Nemotron_3_Nano";
      if (!h56 && !is_nano) continue;
      ASSERT_FALSE(r.skipped) << "row " << r.id << ": " << *r.skipped;
      EXPECT_LT(std::fabs(r.error()), h56 ? 0.08 : 0.20) << "row " << r.id << ": " << 100 * r.error() << "%";
      EXPECT_LE(r.memory.total().value(), r.memory_capacity.value()) << "row " << r.id;
      ++(h56 ? nemotron_h : nano);
    }
  }
  EXPECT_EQ(nemotron_h, 8);
  EXPECT_EQ(nano, 4);
}

// Megatron-Bridge's Nemotron 3 Nano runs on Blackwell (data/checks/megatron_bridge_hybrid_blackwell.csv: five
// DGX-GB200 releases 26.02.01-26.06.01 and the one DGX-B200 run, 26.04.01; 8 GPUs, EP 8, MXFP8, micro-batch 2,
// HybridEP and partial CUDA graphs per their recipes), written down once hybrid models were modelled (2026-12-06)
// and not tuned: +24.7% to +37.7%, as fast as the other eager fine-grained MoE rows on these datasheet profiles.
// A regression guard: every row runs and fits, each within 45%, the MAPE at most 37% (31.9%; 28.6% since the Grace
// host's speed and Transformer Engine's host work are priced; 30.8% with Blackwell's measured MXFP8 kernel rate;
// 36.2% since the recipe table gave the 26.02.01 row its recipe's HybridEP and CUDA graphs, which it had missed).
TEST(Validation, MegatronBridgeHybridBlackwellChecks) {
  const CheckFile c = check_file("megatron_bridge_hybrid_blackwell.csv", 6, 0.45);
  EXPECT_EQ(c.hybrid, 0);
  EXPECT_EQ(c.predicted, 6);
  EXPECT_LE(c.mape, 0.37) << "MAPE " << 100 * c.mape << "%";
}

// The rest of Megatron-Bridge's DGX-H100 tables (releases 25.09-26.06; data/checks/megatron_bridge_h100_more.csv,
// 21 rows not in the other files, each with its release's recipe facts): dense fp8 Llama 3 8B / 70B and Llama 3.1
// 405B within 10%; the fine-grained MoE runs with DeepEP and the EP overlap (Qwen3-30B-A3B 26.02, Qwen3-235B-A22B
// 26.02.01) about +52% and GPT-OSS about +56% (docs/validation.md); the Nemotron 3 Nano rows (Mamba layers) were
// skipped until 2026-12-06 (25.5% over 17) and are predicted since (23.2% over 21). Dense rows are held within
// 10% each; the MAPE is a regression guard.
TEST(Validation, MegatronBridgeMoreH100Checks) {
  const CheckFile c = check_file("megatron_bridge_h100_more.csv", 21, 0.10, /*dense_rows_only=*/true);
  EXPECT_EQ(c.hybrid, 0);
  EXPECT_LE(c.mape, 0.25) << "MAPE " << 100 * c.mape << "% over " << c.predicted << " rows";
}

// MLPerf Training closed-division LLM results outside the shared rows (data/checks/mlperf_training.csv, 42 rows:
// GPT-3 175B v3.0-v4.1 on 64-11,616 H100 and 64 B200, Llama 3.1 405B v5.0-v5.1 on 256-8,192 H100, H200 and B200,
// Llama 3.1 8B v5.1 on 8-256 B200 and H100; step times from the MLLOG logs, layouts from the submissions'
// configs): 10.0%; 9.4% since the B200 profile runs at its power limit (2026-12-05, session 18: the B200 Llama 3.1
// 405B runs from -12.5% / -13.4% to +2.2% / +1.2%; the 64-GPU GPT-3 "preview" run from +4.5% to +21.5%, and the
// two Llama 3.1 8B runs with fp8 attention, which is priced at bf16 rates, from +17% to +32%). All rows run and
// fit; the MAPE bound is 10%, each row within 40%.
TEST(Validation, MlperfTrainingChecks) {
  const CheckFile c = check_file("mlperf_training.csv", 42, 0.40);
  EXPECT_EQ(c.hybrid, 0);  // every row is predicted
  EXPECT_EQ(c.predicted, 42);
  EXPECT_LE(c.mape, 0.10) << "MAPE " << 100 * c.mape << "%";
}

// Megatron-Bridge's DGX GB200 runs, every release 25.09-26.08 (data/checks/megatron_bridge_gb200.csv, 67 rows),
// priced with profiles/gb200.yaml (the B200's die at 1,200 W: datasheet peaks, the B200's published efficiencies)
// in topologies/gb200-nvl72.yaml (64-GPU NVLink5 domains on an NDR fabric). 19.8% over 66 rows, written before
// any GB200 number was looked at and not tuned to them (dense Llama 3 / 3.1 runs 11.3% fast on average); 16.0%
// with the B200's power-cap model at the GB200's 1,200 W (dense 5.0%, +0.5% mean, all but the one CP row within
// 12%); 15.6% once 49 rows carry their release's recipe facts (the graphed 26.06-26.08 MoE recipes within 10%,
// GPT-OSS with its unmodelled fused expert MLP and fp8 attention up to 110% fast); 12.8% once GPT-OSS's unfused
// RoPE and expert-bias loop are priced (2026-12-06); 10.6% once the Grace host's speed and Transformer Engine's host
// work are priced (eager Qwen3-30B-A3B and GPT-OSS rows closer); 10.9% with Blackwell's measured fp8 and MXFP8
// kernel rates and blockwise fp8 run as MXFP8 (TE's GEMM profiling guide: the 405B rows from -4..-12% to -6..+3%, the 70B and 8B ones from -1..+7% to
// +7..+15%; dense 5.5% -> 6.5%). One row's layout is inconsistent (DeepSeek-V3 25.09
// with the parenthesised PP 8: EP 64 over the 32 ranks of a stage) and is skipped with that reason. The Llama 3
// 70B runs with FSDP on 64 GPUs at micro-batch 2 without recompute are predicted out of memory: what their recipe
// keeps (activation offloading to the Grace CPUs' memory is not modelled) is not in the rows.
TEST(Validation, MegatronBridgeGB200Checks) {
  const auto csv = std::filesystem::path(CS_SOURCE_DIR) / "data" / "checks" / "megatron_bridge_gb200.csv";
  const auto rows = validate_as_cli(csv);
  ASSERT_EQ(rows.size(), 67u);
  double sum = 0;
  int predicted = 0;
  for (const auto& r : rows) {
    if (r.skipped) {
      EXPECT_EQ(r.id, "gb63");
      EXPECT_NE(r.skipped->find("parallelism.ep"), std::string::npos) << *r.skipped;
      continue;
    }
    EXPECT_LT(std::fabs(r.error()), 1.2) << "row " << r.id << ": " << 100 * r.error() << "%";
    if (!r.moe && r.memory.total().value() <= r.memory_capacity.value()) {
      EXPECT_LT(std::fabs(r.error()), 0.30) << "row " << r.id << ": " << 100 * r.error() << "%";
    }
    sum += std::fabs(r.error());
    ++predicted;
  }
  EXPECT_EQ(predicted, 66);
  EXPECT_LE(sum / predicted, 0.14) << "MAPE " << 100 * sum / predicted << "%";
}

// Megatron-Bridge's DGX GB300 and DGX B300 runs (Blackwell Ultra), every release 25.11-26.08
// (data/checks/megatron_bridge_gb300_b300.csv, 116 rows with each release's recipe facts), priced with
// profiles/gb300.yaml and b300.yaml (datasheet peaks at the B200's published efficiencies, a published GB300
// attention rate, the power-cap model at 1,400 W and 1,100 W) in topologies/gb300-nvl72.yaml and dgx-b300.yaml.
// Before 2026-12-06 every row was skipped ("Blackwell Ultra is not modelled"). Written before any Blackwell
// Ultra number was looked at and not tuned to them: 19.7% over 98 rows; 16.4% once GPT-OSS's unfused RoPE and
// expert-bias loop are priced; 16.3% with a published GB300 cuBLAS rate (bf16 0.73, fp8 0.62 estimated from it;
// dense fp8 13.1% -> 8.4%); 15.0% with those two paths priced as measured on an H100 (run 7); 15.3% with the hosts'
// speed and Transformer Engine's host work (2026-12-06); 14.8% with the fp8, MXFP8 and NVFP4 kernel rates TE's GEMM
// profiling guide measured on a B300 (dense 8.1% -> 5.6%); 14.6% with fp8 attention where the recipe sets it.
// Each row within 140%: Qwen3-235B on B300 with NCCL's
// dropless all-to-all (bu24, bu29: the host-synchronisation pattern of docs/validation.md "Not done") are 130% and
// 136% fast. The models the simulator has no
// architecture for (DeepSeek-V4 Flash, Nemotron 3 Super and Ultra: latent MoE) are skipped with that reason.
// GPT-OSS is 1-66% fast as on every other part ("Dense fp8 checks and GPT-OSS" in docs/validation.md); dense
// Llama runs are -10.5% to +15.3% in fp8 and MXFP8 (the GB300's sustained clock at 1,400 W is an estimate of the GB200's model)
// and within 10% in NVFP4 but for one row whose table layout no recipe of its release has (gu57).
TEST(Validation, MegatronBridgeBlackwellUltraChecks) {
  const auto csv = std::filesystem::path(CS_SOURCE_DIR) / "data" / "checks" / "megatron_bridge_gb300_b300.csv";
  const auto rows = validate_as_cli(csv);
  ASSERT_EQ(rows.size(), 116u);
  double sum = 0, nvfp4_sum = 0;
  int predicted = 0, nvfp4 = 0;
  for (const auto& r : rows) {
    if (r.skipped) {
      EXPECT_NE(r.skipped->find("architecture"), std::string::npos) << r.id << ": " << *r.skipped;
      EXPECT_TRUE(r.model.starts_with("Nemotron_3_Super") || r.model.starts_with("Nemotron_3_Ultra") ||
                  r.model.starts_with("DeepSeekV4"))
          << r.id << " " << r.model;
      continue;
    }
    EXPECT_LT(std::fabs(r.error()), 1.4) << "row " << r.id << ": " << 100 * r.error() << "%";
    if (!r.moe) {
      EXPECT_LT(std::fabs(r.error()), 0.35) << "row " << r.id << ": " << 100 * r.error() << "%";
    }
    const bool fp4 = std::any_of(r.assumptions.begin(), r.assumptions.end(),
                                 [](const std::string& a) { return a.starts_with("NVFP4"); });
    if (fp4 && !r.moe) {
      nvfp4_sum += std::fabs(r.error());
      ++nvfp4;
    }
    sum += std::fabs(r.error());
    ++predicted;
  }
  EXPECT_EQ(predicted, 98);
  EXPECT_LE(sum / predicted, 0.18) << "MAPE " << 100 * sum / predicted << "%";
  ASSERT_EQ(nvfp4, 9);
  EXPECT_LE(nvfp4_sum / nvfp4, 0.10) << "NVFP4 MAPE " << 100 * nvfp4_sum / nvfp4 << "%";
}

// Megatron-Bridge's NVFP4 runs on DGX GB200 and DGX B200 (data/checks/megatron_bridge_nvfp4_gb200_b200.csv, 16
// rows; the GB200 and B200 check files hold the same tables' other precisions): Llama 3 70B and Llama 3.1 405B in
// every linear layer's GEMMs at the fp4 peak (the B200's published NVFP4 GEMM efficiency, 0.43), with each
// release's parameter format (fp4_param_gather) and TP overlap off as its recipe sets. 8.7% over 9 rows, each
// within 17%; Nemotron 3 Super (latent MoE, not modelled) is skipped.
TEST(Validation, MegatronBridgeNvfp4Checks) {
  const auto csv = std::filesystem::path(CS_SOURCE_DIR) / "data" / "checks" / "megatron_bridge_nvfp4_gb200_b200.csv";
  const auto rows = validate_as_cli(csv);
  ASSERT_EQ(rows.size(), 16u);
  double sum = 0;
  int predicted = 0;
  for (const auto& r : rows) {
    if (r.skipped) {
      EXPECT_TRUE(r.model.starts_with("Nemotron_3_Super")) << r.id << ": " << *r.skipped;
      continue;
    }
    EXPECT_LT(std::fabs(r.error()), 0.20) << "row " << r.id << ": " << 100 * r.error() << "%";
    sum += std::fabs(r.error());
    ++predicted;
  }
  EXPECT_EQ(predicted, 9);
  EXPECT_LE(sum / predicted, 0.10) << "MAPE " << 100 * sum / predicted << "%";
}

// The Megatron-Core MoE report's H100 results (arXiv 2603.07685, Table 11; configurations in Table 17 and
// Appendix B; data/checks/megatron_core_moe_report_h100.csv): Qwen3-235B-A22B on 256 and DeepSeek-V3 on 1,024 H100
// with DeepEP and the EP all-to-all overlapped by the merged forward-backward schedule. Without the overlap they
// were -15.8% and -18.5%; with it +3.1% and +0.1%, and with their recompute modules +2.8% and -0.3%; DeepSeek-V3's
// group-limited routing (its preset's 4 of 8 groups, filled since 2026-12-05) makes its flex dispatch shorter:
// +6.6%. Each within 8%, and the overlap must be what the rows state.
TEST(Validation, MegatronCoreReportH100MoeChecks) {
  const auto csv = std::filesystem::path(CS_SOURCE_DIR) / "data" / "checks" / "megatron_core_moe_report_h100.csv";
  const auto rows = validate_as_cli(csv);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& r : rows) {
    ASSERT_FALSE(r.skipped.has_value()) << "row " << r.id << ": " << *r.skipped;
    EXPECT_LT(std::fabs(r.error()), 0.08) << "row " << r.id << ": " << 100 * r.error() << "%";
    EXPECT_NE(std::find(r.assumptions.begin(), r.assumptions.end(),
                        "EP all-to-all overlapped (merged forward-backward 1F1B)"),
              r.assumptions.end())
        << "row " << r.id;
  }
}

// DeepSeek-V3's own pre-training throughput (arXiv 2412.19437: 180K H800 GPU hours per trillion tokens on 2,048
// H800, 1,543 tokens/s per GPU; data/checks/deepseek_v3_h800.csv): PP 16 x EP 64 with DualPipe, its couples'
// all-to-alls overlapped, the flex-like cross-node dispatch and group-limited routing. On the H800 profile and
// topology (NVLink 400 GB/s): +6.6%; 1F1B without the overlap would be -33%. Within 10%, with DualPipe and the
// overlap read from the row.
TEST(Validation, DeepSeekV3OnH800Check) {
  const auto csv = std::filesystem::path(CS_SOURCE_DIR) / "data" / "checks" / "deepseek_v3_h800.csv";
  const auto rows = validate_as_cli(csv);
  ASSERT_EQ(rows.size(), 1u);
  const auto& r = rows[0];
  ASSERT_FALSE(r.skipped.has_value()) << *r.skipped;
  EXPECT_LT(std::fabs(r.error()), 0.10) << 100 * r.error() << "%";
  EXPECT_LE(r.memory.total().value(), r.memory_capacity.value());  // 78.0 of 79.2 GiB: it ran
  for (const char* a : {"DualPipe", "EP all-to-all overlapped (DualPipe's forward-backward couples)",
                        "recompute modules: layernorm, mla_up_proj, moe_act", "flex dispatcher (DeepEP / HybridEP)",
                        // DeepEP hands DeepSeek's fp8 grouped GEMMs aligned rows: no Fp8Padding copies
                        "expert rows aligned for the quantised GEMMs by the router or dispatch (no Fp8Padding copies)"}) {
    EXPECT_NE(std::find(r.assumptions.begin(), r.assumptions.end(), a), r.assumptions.end()) << a;
  }
}

// Measurements from outside NVIDIA: Alibaba Pai-Megatron-Patch's Qwen3 MoE speed reports on H800 (issues #643 and
// #658, Megatron-Core with Transformer Engine, eager: CUDA graphs removed; data/checks/pai_megatron_h800.csv,
// 2026-12-06). Qwen3-30B-A3B with token dropping on 16 GPUs: -17.9% and -17.1%; Qwen3-235B-A22B dropless on 256
// GPUs at PP 32 x VP 3 with full or module recompute: -11.4% to +5.7%. MAPE 10.4%. Since run 15 (Megatron-Core
// on Transformer Engine's 2025 stack costs the host 7.6x eager PyTorch per operator, measured) the 235B rows run
// slower and one of them (pa5) is 29.9% slow: MAPE 12.0%. Every row within 30%, the MAPE at most 12.5%, each fits
// in memory, and the rows run eagerly with the dispatcher and dropping they state.
TEST(Validation, PaiMegatronH800Checks) {
  const CheckFile c = check_file("pai_megatron_h800.csv", 6, 0.30);
  EXPECT_EQ(c.predicted, 6);
  for (const auto& r : c.rows) {
    const bool graphs = std::find(r.assumptions.begin(), r.assumptions.end(), "CUDA graphs: no eager launch costs") !=
                        r.assumptions.end();
    EXPECT_FALSE(graphs) << "row " << r.id;
    const bool dropping = std::find(r.assumptions.begin(), r.assumptions.end(),
                                    "token dropping at capacity factor 1.0 (padded)") != r.assumptions.end();
    EXPECT_EQ(dropping, r.id == "pa1" || r.id == "pa2") << "row " << r.id;
  }
  EXPECT_LE(c.mape, 0.125) << "MAPE " << 100 * c.mape << "%";
}

// MegaScale's Megatron-LM baseline (Jiang et al., NSDI 2024, Table 2: GPT 175B, TP 8, PP 8, six interleaved stages,
// on 256-12,288 Ampere GPUs; data/checks/megascale.csv, written 2026-12-06). Read with the current defaults (flash
// attention, overlapped pipeline and DP communication) it was 13.7-27.9% fast (21.7%), about MegaScale's own
// optimized times. Megatron-LM at the paper's commit (2023-01-11) ran attention unfused, synchronised the device
// after each batched pipeline send, and reduced gradients and gathered parameters after the backward pass and
// the optimizer step: with those facts 6.0%, -1.3% to -12.5%. Every row within 15%, the MAPE at most 8%.
TEST(Validation, MegaScaleMegatronBaselineChecks) {
  const CheckFile c = check_file("megascale.csv", 8, 0.15);
  EXPECT_EQ(c.predicted, 8);
  for (const auto& r : c.rows) {
    const auto has = [&](const char* a) {
      return std::any_of(r.assumptions.begin(), r.assumptions.end(), [&](const std::string& x) { return x.find(a) != std::string::npos; });
    };
    EXPECT_TRUE(has("pipeline sends block the stage")) << "row " << r.id;
    EXPECT_TRUE(has("DP gradient reduction and parameter gather not overlapped")) << "row " << r.id;
    EXPECT_TRUE(has("unfused attention")) << "row " << r.id;
  }
  EXPECT_LE(c.mape, 0.08) << "MAPE " << 100 * c.mape << "%";
}

// Megatron-Bridge's model verification cards (examples/model_verification_cards/*/card.yaml, runs of 2026-07/08 at
// stated commits, each recipe resolved at its commit; data/checks/megatron_bridge_verification_cards.csv, written
// 2026-12-06) and the controlled EP-overlap A/B of its MoE skills: current software on H100, GB200 and GB300,
// mock data and force-balanced routing. 19 rows at 5.9%; the two eager Blackwell rows (GPT-OSS-120B on GB200 with
// NCCL's all-to-all, Nemotron-3-Nano on GB300 with per-module graphs) are 29% and 21% fast, as the other eager
// Blackwell MoE rows; every other row within 10%. The A/B's EP-overlap speed-up (1.177 measured) within 3%, and the
// unfused-permutation smoke (moe_permute_fusion=false) read as such.
TEST(Validation, MegatronBridgeVerificationCards) {
  const CheckFile c = check_file("megatron_bridge_verification_cards.csv", 19, 0.35);  // the eager Blackwell rows
  ASSERT_EQ(c.predicted, 19);
  std::map<std::string, const ValidationRow*> by_id;
  for (const auto& r : c.rows) {
    by_id[r.id] = &r;
    if (r.id != "mv19" && r.id != "mv27") {
      EXPECT_LT(std::fabs(r.error()), 0.10) << "row " << r.id << ": " << 100 * r.error() << "%";
    }
  }
  EXPECT_LE(c.mape, 0.07) << "MAPE " << 100 * c.mape << "%";
  const auto has = [](const ValidationRow& r, const char* a) {
    return std::find(r.assumptions.begin(), r.assumptions.end(), a) != r.assumptions.end();
  };
  for (const char* id : {"mv2", "mv3", "mv8", "mv9", "mv10", "mv11", "mv12", "mv13", "mv17", "mv18", "mv20"}) {
    EXPECT_TRUE(has(*by_id.at(id), "CUDA graphs: no eager launch costs")) << id;  // "full iteration"
    // A captured MXFP8 iteration runs static, router-padded expert shapes: no Fp8Padding copies.
    EXPECT_TRUE(has(*by_id.at(id), "expert rows aligned for the quantised GEMMs by the router or dispatch (no "
                                   "Fp8Padding copies)")) << id;
  }
  EXPECT_FALSE(has(*by_id.at("mv28"), "EP all-to-all overlapped (merged forward-backward 1F1B)"));
  EXPECT_TRUE(has(*by_id.at("mv29"), "EP all-to-all overlapped (merged forward-backward 1F1B)"));
  const double measured = by_id.at("mv28")->measured / by_id.at("mv29")->measured;
  const double predicted = by_id.at("mv28")->predicted / by_id.at("mv29")->predicted;
  EXPECT_NEAR(predicted / measured, 1.0, 0.03) << "EP overlap speed-up " << predicted << " against " << measured;
  for (const char* id : {"mv30", "mv31"}) {
    EXPECT_TRUE(has(*by_id.at(id), "token permutation unfused (PyTorch's index_select and scatter_add_)")) << id;
  }
  EXPECT_FALSE(has(*by_id.at("mv19"), "flex dispatcher (DeepEP / HybridEP)"));
}

}  // namespace
}  // namespace cs

