// Serving rows through `clustersim validate`'s path (predict_row): prefill, decode and generate rows priced by the
// serving layer's iteration cost, co-located rows slowed by the co-location model, and the shared H100 rows within
// the bound docs/validation.md states.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "sim/input/csv_table.hpp"
#include "sim/schedule/colocation_model.hpp"
#include "sim/validation/validation.hpp"

namespace cs {
namespace {

// The columns validate requires, then the serving ones; one 1.5B Llama-shaped model on an H100 (the shared rows').
const std::string kHeader =
    "row_id,source,row_kind,hardware,gpu_count,gpus_per_node,model,arch_type,num_layers,hidden_size,num_heads,"
    "num_kv_heads,ffn_hidden_size,vocab_size,seq_len,moe_experts,moe_topk,moe_ffn_hidden,tp,pp,dp,cp,ep,"
    "vpp_interleave,zero_fsdp,sequence_parallel,act_recompute,global_batch_seqs,micro_batch,precision,framework,"
    "meas_step_time_s,meas_tflops_per_gpu,meas_tokens_per_s_per_gpu,meas_mfu_pct,meas_other,notes,batch,prompt_len,"
    "ctx_len,gen_len,cuda_graphs,colocated_with,isolation,meas_ttft_s,meas_tpot_s\n";

std::string serving_row(const std::string& id, const std::string& kind, int batch, int prompt, int ctx, int gen,
                        const std::string& graphs, const std::string& step, const std::string& partner = "",
                        const std::string& isolation = "", const std::string& ttft = "", const std::string& tpot = "") {
  return id + ",test," + kind + ",H100-SXM 80GB,1,1,llama-1.5b,dense,16,2048,32,8,8192,128256,,,,,1,1,1,1,1,,,,,,,bf16," +
         "PyTorch," + step + ",,,,,," + std::to_string(batch) + "," + (prompt ? std::to_string(prompt) : "") + "," +
         (ctx ? std::to_string(ctx) : "") + "," + (gen ? std::to_string(gen) : "") + "," + graphs + "," + partner + "," +
         isolation + "," + ttft + "," + tpot + "\n";
}

TEST(ServingRows, EachKindIsPredictedOnItsQuantity) {
  const CsvTable t = CsvTable::parse(
      kHeader + serving_row("p", "serve_prefill", 1, 2048, 0, 0, "no", "0.011") +
          serving_row("d", "serve_decode", 8, 0, 512, 0, "yes", "0.0022") +
          serving_row("g", "serve_generate", 4, 512, 0, 32, "no", "", "", "", "0.02", "0.010"),
      "rows.csv");
  const auto rows = validate(t);
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& r : rows) {
    ASSERT_FALSE(r.skipped) << r.id << ": " << *r.skipped;
    EXPECT_GT(r.predicted, 0) << r.id;
  }
  EXPECT_EQ(rows[0].quantity, "step_time_s");
  EXPECT_EQ(rows[1].quantity, "step_time_s");
  EXPECT_EQ(rows[2].quantity, "tpot_s");
  // The generation is compared on its time per output token; its time to first token is stated beside it.
  bool ttft = false;
  for (const auto& a : rows[2].assumptions) ttft = ttft || a.find("time to first token") != std::string::npos;
  EXPECT_TRUE(ttft);
  // A prefill of 2,048 tokens costs more than one decode step.
  EXPECT_GT(rows[0].predicted, rows[1].predicted);
}

TEST(ServingRows, ACoLocatedRowIsSlowedByTheColocationModel) {
  const CsvTable t = CsvTable::parse(
      kHeader + serving_row("alone", "serve_decode", 16, 0, 1024, 0, "yes", "0.0028") +
          serving_row("shared", "serve_decode", 16, 0, 1024, 0, "yes", "0.0072", "train-1", "none") +
          serving_row("mps", "serve_decode", 16, 0, 1024, 0, "yes", "0.0118", "train-1", "mps") +
          serving_row("bad", "serve_decode", 16, 0, 1024, 0, "yes", "0.0118", "train-1", "cgroups"),
      "rows.csv");
  const auto rows = validate(t);
  ASSERT_EQ(rows.size(), 4u);
  const double alone = rows[0].predicted;
  const ColocationParams& p = ColocationParams::shipped();
  // Time-sliced beside an always-busy job: the graph's kernel time plus one quantum and one switch.
  const double expected = p.graph_gpu_share * alone + p.quantum.seconds() + p.context_switch.seconds();
  EXPECT_NEAR(rows[1].predicted, expected, 1e-9);
  EXPECT_NEAR(rows[2].predicted, alone * (1 + p.graph_gpu_share * p.mps_kernel_stretch), 1e-9);
  ASSERT_TRUE(rows[3].skipped);
  EXPECT_NE(rows[3].skipped->find("isolation"), std::string::npos);
}

// The shared H100 rows (20 prefill and decode steps of the 1.5B model): 21.6% mean absolute error today, every
// row predicted fast (the eager small kernels PyTorch launches that the serving layer fuses); the bound is 25%.
TEST(ServingRows, SharedH100RowsStayWithinTheirBound) {
  const std::filesystem::path csv = std::filesystem::path(CS_SOURCE_DIR) / ".." / "shared" / "validation" / "serving_rows.csv";
  if (!std::filesystem::exists(csv)) GTEST_SKIP() << "no " << csv << " beside the repository";
  const auto rows = validate(CsvTable::load(csv.string()));
  double sum = 0;
  int n = 0;
  for (const auto& r : rows) {
    if (r.skipped) continue;
    sum += std::fabs(r.error());
    ++n;
  }
  EXPECT_EQ(n, 20);
  EXPECT_LT(sum / n, 0.25);
}

}  // namespace
}  // namespace cs
