// `clustersim validate --residuals-out`: the residual file that run's error bands rest on, written by the CLI
// and read back by the library's reader.
#include <gtest/gtest.h>

#include "run_cli.hpp"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <fstream>
#include <string>

#include "sim/validation/validation.hpp"
#include "sim/scenario/band_basis.hpp"

namespace {

namespace fs = std::filesystem;

/// A validation file of two small dense bf16 rows (GPT 1.3B on 8 H100), in the column format of
/// shared/validation/public_rows.csv.
std::string two_rows() {
  std::string header, r1, r2;
  for (const auto& c : cs::validation_columns()) {
    const bool first = header.empty();
    header += (first ? "" : ",") + c;
    auto cell = [&](const std::string& id, const std::string& step) -> std::string {
      if (c == "row_id") return id;
      if (c == "source") return "e2e test";
      if (c == "hardware") return "H100 SXM";
      if (c == "gpu_count") return "8";
      if (c == "model") return "GPT 1.3B";
      if (c == "num_layers") return "24";
      if (c == "hidden_size") return "2048";
      if (c == "num_heads") return "16";
      if (c == "vocab_size") return "51200";
      if (c == "seq_len") return "2048";
      if (c == "tp" || c == "pp") return "1";
      if (c == "global_batch_seqs") return "64";
      if (c == "micro_batch") return "2";
      if (c == "precision") return "bf16";
      if (c == "meas_step_time_s") return step;
      return "";
    };
    r1 += (first ? "" : ",") + cell("1", "1.0");
    r2 += (first ? "" : ",") + cell("2", "1.2");
  }
  return header + "\n" + r1 + "\n" + r2 + "\n";
}

TEST(ValidateCli, ResidualsOutWritesAFileTheLibraryReadsBack) {
  const fs::path d = fs::temp_directory_path() / ("cs_e2e_validate_" + std::to_string(::getpid()));
  fs::create_directories(d);
  std::ofstream(d / "rows.csv") << two_rows();
  const fs::path out = d / "residuals.csv";
  const auto o = cs::e2e::run_cli("validate " + (d / "rows.csv").string() + " --residuals-out " + out.string());
  ASSERT_EQ(o.status, 0) << o.output;
  ASSERT_TRUE(fs::exists(out));
  std::ifstream in(out);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first.rfind("# ", 0), 0u) << "the file starts with how it was generated";
  const std::vector<cs::Residual> r = cs::read_residuals(out.string());
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].id, "1");
  EXPECT_EQ(r[1].id, "2");
  EXPECT_EQ(r[0].gpus, 8);
  EXPECT_FALSE(r[0].fp8);
  EXPECT_FALSE(r[0].moe);
  // Same configuration, measured 1.0 s and 1.2 s: the ratios differ by exactly that factor.
  EXPECT_NEAR(r[1].time_ratio / r[0].time_ratio, 1.2, 1e-12);
  fs::remove_all(d);
}

TEST(ValidateCli, JsonCarriesEachRowsStepBreakdown) {
  const fs::path d = fs::temp_directory_path() / ("cs_e2e_validate_json_" + std::to_string(::getpid()));
  fs::create_directories(d);
  std::ofstream(d / "rows.csv") << two_rows();
  const auto o = cs::e2e::run_cli("validate " + (d / "rows.csv").string() + " --json " + (d / "out.json").string());
  ASSERT_EQ(o.status, 0) << o.output;
  std::ifstream in(d / "out.json");
  const auto j = nlohmann::json::parse(in);
  ASSERT_EQ(j.size(), 2u);
  for (const auto& row : j) {
    // The critical stage's parts (compute, exposed communication, waits, optimizer) make up its step time;
    // memory_bound_kernels_s is the bandwidth-bound share of compute, not a further part.
    const auto& b = row.at("breakdown");  // the object `run --json` writes
    double sum = 0;
    for (const char* k : {"compute_s", "tp_comm_exposed_s", "cp_comm_exposed_s", "ep_comm_exposed_s", "host_wait_s",
                          "pipeline_bubble_and_wait_s", "dp_comm_exposed_s", "optimizer_s", "param_gather_exposed_s"}) {
      sum += b.at(k).get<double>();
    }
    const double step = row.at("predicted_step_s").get<double>();
    EXPECT_GT(b.at("compute_s").get<double>(), 0.5 * step);
    EXPECT_LE(b.at("memory_bound_kernels_s").get<double>(), b.at("compute_s").get<double>());
    EXPECT_NEAR(sum, step, 1e-6 * step) << row.dump();
    EXPECT_NEAR(row.at("predicted").get<double>(), step, 1e-9) << "a step-time row predicts the step time";
  }
  fs::remove_all(d);
}

TEST(ValidateCli, MalformedResidualFileIsALocatedError) {
  const fs::path d = fs::temp_directory_path() / ("cs_e2e_residuals_" + std::to_string(::getpid()));
  fs::create_directories(d);
  std::ofstream(d / "r.csv") << "row_id,source,quantity,measured,predicted,time_ratio,fp8,moe,gpus,calibration_p90\n"
                                "1,s,step_time_s,1,1,1,0,0,eight,0\n";
  try {
    (void)cs::read_residuals((d / "r.csv").string());
    FAIL() << "gpus 'eight' must be rejected";
  } catch (const cs::InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind((d / "r.csv").string() + ":2:9: gpus:", 0), 0u) << e.what();
  }
  fs::remove_all(d);
}

}  // namespace
