// The Megatron-Bridge recipe table (data/recipes/megatron_bridge.csv, scripts/megatron_bridge_recipes.py): lookups
// by a performance-summary row's release, model, GPU and precision; bad cells named; agreement with the recipes the
// check files' notes cite by hand; validation reading a recipe's settings where a row says nothing of them.
#include <gtest/gtest.h>

#include <regex>

#include "sim/core/data_dir.hpp"
#include "sim/validation/recipe_table.hpp"
#include "validation_csv.hpp"

namespace cs {
namespace {

TEST(RecipeTable, FindsRow190sRecipe) {
  const RecipeTable& t = RecipeTable::shipped();
  EXPECT_GT(t.size(), 1000u);
  const auto r = t.find({"25.11", "Qwen3_30B_a3B", "H100-SXM5-80GB (DGX-H100)", "FP8-CS", 16, 512});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->tag, "v0.2.0");
  EXPECT_EQ(r->config, "QWEN3_30B_A3B_H100_FP8_CS_BASE_CONFIG");
  EXPECT_TRUE(r->a2a_overlap);
  EXPECT_EQ(r->graph_impl, "");  // the bf16 config captures moe_router and moe_preprocess, the fp8 one nothing
  const auto bf16 = t.find({"25.11", "Qwen3_30B_a3B (tokendrop)", "H100 (DGX-H100)", "BF16", 16, 512});
  ASSERT_TRUE(bf16.has_value());
  EXPECT_EQ(bf16->graph_scope, "moe_router moe_preprocess");
  // 26.02.01 moved Qwen3-30B-A3B on H100 to HybridEP without the merged schedule.
  const auto later = t.find({"26.02.01", "Qwen3_30B_a3B", "H100-SXM5-80GB (DGX-H100)", "FP8", 16, 1024});
  ASSERT_TRUE(later.has_value());
  EXPECT_FALSE(later->a2a_overlap);
  EXPECT_EQ(later->dispatcher, "hybridep");
  // Nothing for a release or model the table does not have.
  EXPECT_FALSE(t.find({"25.09", "Qwen3_30B_a3B", "H100", "BF16", 16, 512}).has_value());
  EXPECT_FALSE(t.find({"25.11", "GPT 175B", "H100", "BF16", 16, 512}).has_value());
  EXPECT_FALSE(t.find({"", "Qwen3_30B_a3B", "H100", "BF16", 16, 512}).has_value());
}

TEST(RecipeTable, ReadsTheReleaseARowNames) {
  const RecipeTable& t = RecipeTable::shipped();
  EXPECT_EQ(t.container_named_in("NVIDIA Megatron-Bridge performance summary (NeMo 25.11 container)"), "25.11");
  EXPECT_EQ(t.container_named_in("Megatron-Bridge / NeMo 26.04.01"), "26.04.01");
  EXPECT_EQ(t.container_named_in("Megatron-Bridge performance summary, section '26.02.01' DGX-H100"), "26.02.01");
  EXPECT_EQ(t.container_named_in("Megatron-Bridge v0.3.1 recipe"), "26.02.01");
  EXPECT_EQ(t.container_named_in("Megatron-Bridge v0.2.0"), "25.11");
  // Versions and numbers that are not a container's release.
  EXPECT_EQ(t.container_named_in("Megatron-Core 0.15.4, Transformer Engine 2.9.0"), "");
  EXPECT_EQ(t.container_named_in("Megatron-Bridge v0.3.10"), "");
  EXPECT_EQ(t.container_named_in("1024.50 tokens"), "");
  EXPECT_EQ(t.container_named_in("Megatron-Bridge main @ 51885cf"), "");
  // The release token alone, as the Transformer Engine stack's year is read from it (validation).
  EXPECT_EQ(first_container_release("nvcr.io/nvidia/nemo:ngc25.01"), "25.01");
  EXPECT_EQ(first_container_release("PyTorch 24.05, then NeMo 25.11"), "24.05");
  EXPECT_EQ(first_container_release("TE 0.25.11 or 125.11 or 25.13 or 25.11.123"), "");
}

TEST(RecipeTable, PicksTheVersionOfTheRowsScale) {
  const RecipeTable& t = RecipeTable::shipped();
  const auto v1 = t.find({"26.04", "DeepSeekV3", "H100", "FP8-CS", 1024, 8192});
  const auto v2 = t.find({"26.04", "DeepSeekV3", "H100", "FP8-CS", 1024, 16384});
  ASSERT_TRUE(v1 && v2);
  EXPECT_EQ(v1->global_batch, 8192);
  EXPECT_EQ(v2->global_batch, 16384);
  EXPECT_NE(v1->config, v2->config);
}

TEST(RecipeTable, BadCellsNameFileLineAndColumn) {
  const std::string header =
      "# a comment\ncontainer,bridge_tag,model_key,gpu,precision,version,config,source_file,num_gpus,global_batch_size,"
      "tensor_model_parallel_size,pipeline_model_parallel_size,virtual_pipeline_model_parallel_size,"
      "expert_model_parallel_size,context_parallel_size,micro_batch_size,"
      "moe_a2a_overlap,moe_flex_dispatcher_backend,cuda_graph_impl,cuda_graph_scope,recompute_modules\n";
  const auto expect_error = [&](const std::string& row, const std::string& what) {
    try {
      (void)RecipeTable::parse(CsvTable::parse(header + row, "recipes.csv"));
      ADD_FAILURE() << "no error for " << row;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_error("25.11,v0.2.0,X,H100,BF16,,X_H100_BF16,f.py,16,512,1,2,,8,1,1,maybe,,,,\n", "recipes.csv:3:0: moe_a2a_overlap");
  expect_error("25.11,v0.2.0,X,H100,BF16,,X_H100_BF16,f.py,sixteen,512,1,2,,8,1,1,true,,,,\n", "recipes.csv:3:0: num_gpus");
  expect_error("25.11,v0.2.0,X,H100,BF16,,X_H100_BF16,f.py,16,512,1,two,,8,1,1,true,,,,\n",
               "recipes.csv:3:0: pipeline_model_parallel_size");
  expect_error(",v0.2.0,X,H100,BF16,,X_H100_BF16,f.py,16,512,1,2,,8,1,1,true,,,,\n", "required");
  try {
    (void)RecipeTable::parse(CsvTable::parse("container,gpu\n25.11,H100\n", "short.csv"));
    ADD_FAILURE() << "no error for missing columns";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("short.csv"), std::string::npos) << e.what();
  }
}

/// Every check-file row that cites its release's Megatron-Bridge config and states whether the merged schedule or
/// a flex dispatcher backend is on (read from the config by hand when the file was written) agrees with the table.
TEST(RecipeTable, AgreesWithTheRecipesTheCheckFilesCite) {
  const RecipeTable& t = RecipeTable::shipped();
  int compared = 0;
  for (const char* file : {"megatron_bridge_b200", "megatron_bridge_gb200", "megatron_bridge_gb300_b300",
                           "megatron_bridge_h100_moe", "megatron_bridge_h100_more", "megatron_bridge_h100_gpt_oss"}) {
    const CsvTable rows = CsvTable::load(data_path(std::string("data/checks/") + file + ".csv"));
    for (const auto& row : rows.rows()) {
      const std::string notes = rows.cell(row, "notes");
      std::smatch container;
      const std::string where = rows.cell(row, "source") + " " + rows.cell(row, "framework");
      if (!std::regex_search(where, container, std::regex(R"(NeMo (\d\d\.\d\d(\.\d\d)?))"))) continue;
      if (notes.find("Recipe of that release") == std::string::npos) continue;
      const auto r = t.find({container[1].str(), rows.cell(row, "model"), rows.cell(row, "hardware"),
                             rows.cell(row, "precision"), std::stoi(rows.cell(row, "gpu_count")),
                             std::stoi("0" + rows.cell(row, "global_batch_seqs"))});
      if (!r) continue;
      const std::string id = std::string(file) + " " + rows.cell(row, "row_id") + ": " + r->config;
      if (notes.find("EP all-to-all overlap on") != std::string::npos) {
        EXPECT_TRUE(r->a2a_overlap) << id;
        ++compared;
      }
      for (const char* backend : {"deepep", "hybridep"}) {
        if (notes.find(std::string("moe_flex_dispatcher_backend ") + backend) != std::string::npos) {
          EXPECT_EQ(r->dispatcher, backend) << id;
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 20);
}

/// Modern row 190 as shared/validation/modern_rows.csv states it (Qwen3-30B-A3B on 16 H100, NeMo 25.11).
testing::Cells row190() {
  return {{"row_id", "190"},
          {"source", "NVIDIA Megatron-Bridge performance summary (NeMo 25.11 container)"},
          {"hardware", "H100-SXM5-80GB (DGX-H100)"}, {"gpu_count", "16"}, {"gpus_per_node", "8"},
          {"model", "Qwen3_30B_a3B"}, {"arch_type", "moe"}, {"num_layers", "48"}, {"hidden_size", "2048"},
          {"num_heads", "32"}, {"num_kv_heads", "4"}, {"vocab_size", "151936"}, {"seq_len", "4096"},
          {"moe_experts", "128"}, {"moe_topk", "8"}, {"moe_ffn_hidden", "768"}, {"tp", "1"}, {"pp", "2"},
          {"dp", "8"}, {"cp", "1"}, {"ep", "8"}, {"vpp_interleave", "24"}, {"zero_fsdp", "DDP"},
          {"global_batch_seqs", "512"}, {"micro_batch", "2"}, {"grad_accum", "32"},
          {"precision", "FP8-CS"}, {"framework", "Megatron-Bridge / NeMo 25.11"},
          {"meas_tokens_per_s_per_gpu", "5275"}};
}

/// Whether one of `row`'s assumptions contains `what`.
bool assumes(const ValidationRow& row, const std::string& what) {
  for (const auto& a : row.assumptions) {
    if (a.find(what) != std::string::npos) return true;
  }
  return false;
}

TEST(RecipeTable, ValidationReadsWhatTheRowLeavesOut) {
  const testing::Cells row = row190();
  const std::string csv = testing::csv_header() + testing::csv_row(row) +
                          testing::csv_row(testing::edited(row, {{"row_id", "2"}, {"notes", "no EP overlap"}}));
  const auto rows = validate(CsvTable::parse(csv, "rows.csv"));
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_FALSE(rows[0].skipped.has_value()) << *rows[0].skipped;
  EXPECT_TRUE(assumes(rows[0], "from the recipe of Megatron-Bridge v0.2.0 (NeMo 25.11, QWEN3_30B_A3B_H100_FP8_CS_BASE_CONFIG)"));
  EXPECT_TRUE(assumes(rows[0], "EP all-to-all overlapped (merged forward-backward 1F1B)"));
  // The row's own words win: one that says the overlap is off keeps it off.
  ASSERT_FALSE(rows[1].skipped.has_value()) << *rows[1].skipped;
  EXPECT_FALSE(assumes(rows[1], "EP all-to-all overlapped"));
  EXPECT_FALSE(assumes(rows[1], "merged forward-backward schedule"));
  EXPECT_NE(rows[0].predicted, rows[1].predicted);
}

// A summary row's layout that no config of its release sets (25.11's Qwen3-30B-A3B H100 row prints 25.09's VP 24
// and MBS 2; v0.2.0's config sets VP 12 and leaves MBS at its default, 1) is taken as the config's, at the config's
// own scale only; a layout that some config of the release sets (another precision's, another scale's) is kept.
TEST(RecipeTable, AStaleLayoutTakesTheReleasesConfig) {
  const RecipeTable& t = RecipeTable::shipped();
  const RecipeQuery q{"25.11", "Qwen3_30B_a3B", "H100-SXM5-80GB (DGX-H100)", "FP8-CS", 16, 512};
  const auto r = t.find(q);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->layout, (RecipeLayout{.tp = 1, .pp = 2, .vp = 12, .cp = 1, .ep = 8, .micro_batch = 1}));
  EXPECT_EQ(r->layout.str(), "TP 1, PP 2, VP 12, EP 8, MBS 1");
  EXPECT_TRUE(t.release_sets(q, r->layout));
  EXPECT_FALSE(t.release_sets(q, {.tp = 1, .pp = 2, .vp = 24, .cp = 1, .ep = 8, .micro_batch = 2}));
  // GB300's bare "FP8" reads as MXFP8 (PP 4, VP 5), but the row's FSDP layout is the FP8-CS config's: kept.
  const RecipeQuery gb300{"26.04", "LLAMA3_70B", "GB300 (DGX-GB300)", "FP8", 64, 256};
  ASSERT_TRUE(t.find(gb300).has_value());
  EXPECT_EQ(t.find(gb300)->layout.pp, 4);
  EXPECT_TRUE(t.release_sets(gb300, {.tp = 1, .pp = 1, .vp = 0, .cp = 1, .ep = 1, .micro_batch = 2}));

  const testing::Cells row = row190();
  const std::string csv = testing::csv_header() + testing::csv_row(row) +
                          testing::csv_row(testing::edited(row, {{"row_id", "2"}, {"vpp_interleave", "12"},
                                                                 {"micro_batch", "1"}})) +
                          testing::csv_row(testing::edited(row, {{"row_id", "3"}, {"global_batch_seqs", "1024"}}));
  const auto rows = validate(CsvTable::parse(csv, "rows.csv"));
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& v : rows) ASSERT_FALSE(v.skipped.has_value()) << v.id << ": " << *v.skipped;
  EXPECT_TRUE(assumes(rows[0], "layout TP 1, PP 2, VP 12, EP 8, MBS 1 (the row states TP 1, PP 2, VP 24, EP 8, MBS 2, "
                               "which no config of the release sets)"));
  // Stated as the config sets it: the same prediction, nothing replaced.
  EXPECT_FALSE(assumes(rows[1], "layout TP"));
  EXPECT_DOUBLE_EQ(rows[0].predicted, rows[1].predicted);
  // Another scale than the config's (GBS 1,024): the row's layout is its own.
  EXPECT_FALSE(assumes(rows[2], "layout TP"));
}

// What a row leaves blank is its release config's: a row that states only TP, PP and EP of row 190's layout states
// nothing that contradicts the config, so nothing is replaced.
TEST(RecipeTable, BlankLayoutCellsAreNotContradictions) {
  const testing::Cells row =
      testing::edited(row190(), {{"row_id", "1"}}, {"dp", "cp", "vpp_interleave", "micro_batch", "grad_accum"});
  const auto rows = validate(CsvTable::parse(testing::csv_header() + testing::csv_row(row), "rows.csv"));
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_FALSE(rows[0].skipped.has_value()) << *rows[0].skipped;
  EXPECT_FALSE(assumes(rows[0], "layout TP"));
}

}  // namespace
}  // namespace cs
