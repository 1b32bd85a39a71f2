// Runs the clustersim binary as a user does and checks exit codes, messages and files.
#include <gtest/gtest.h>

#include "run_cli.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

using cs::e2e::Outcome;

Outcome run(const std::string& args) { return cs::e2e::run_cli(args); }

fs::path temp_dir() {
  const fs::path d = fs::temp_directory_path() / ("cs_e2e_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

std::string flagship() { return std::string(CS_SOURCE_DIR) + "/scenarios/gpt3-175b-1024xh100.yaml"; }

TEST(Cli, HelpListsSubcommandsAndExitsZero) {
  const Outcome o = run("--help");
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.output.find("run"), std::string::npos);
  const Outcome r = run("run --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("--json"), std::string::npos);
  EXPECT_NE(r.output.find("--trace"), std::string::npos);
}

TEST(Cli, UnknownOptionIsBadInput) {
  EXPECT_EQ(run("run --frobnicate x.yaml").status, 2);
  EXPECT_EQ(run("").status, 2);  // a subcommand is required
}

TEST(Cli, FlagshipRunWritesJsonAndTrace) {
  const fs::path d = temp_dir();
  const Outcome o = run("run " + flagship() + " --json " + (d / "r.json").string() + " --trace " + (d / "t.json").string());
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("step time"), std::string::npos);
  std::ifstream in(d / "r.json");
  const auto j = nlohmann::json::parse(in);
  for (const char* key : {"step_time_s", "tokens_per_s", "mfu", "peak_memory_bytes", "time_to_train_s", "breakdown",
                          "network", "power", "tco", "reliability"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_GT(j["step_time_s"].get<double>(), 0.0);
  // The flagship gives a token budget, so the facility sections are filled.
  for (const char* key : {"power", "tco", "reliability"}) EXPECT_TRUE(j[key].is_object()) << key;
  EXPECT_TRUE(j["network"].contains("model"));
  EXPECT_GT(j["mfu"].get<double>(), 0.0);
  EXPECT_LT(j["mfu"].get<double>(), 1.0);
  // tokens/s = global batch x sequence / step time
  EXPECT_NEAR(j["tokens_per_s"].get<double>(), 1536.0 * 2048.0 / j["step_time_s"].get<double>(), 1e-6 * j["tokens_per_s"].get<double>());
  std::ifstream tin(d / "t.json");
  const auto t = nlohmann::json::parse(tin);
  ASSERT_TRUE(t.contains("traceEvents"));
  int complete = 0;
  for (const auto& e : t["traceEvents"]) complete += e["ph"] == "X" ? 1 : 0;
  // 8 stages x 96 micro-batches x 4 chunks x (forward + backward) compute spans at least.
  EXPECT_GE(complete, 8 * 96 * 4 * 2);
  fs::remove_all(d);
}

TEST(Cli, TcoPrintsTheBreakdownAsTableAndCsv) {
  const Outcome table = run("tco " + flagship());
  ASSERT_EQ(table.status, 0) << table.output;
  // Money in human units in the table ("$39.2 M"); the CSV keeps the plain numbers and their units.
  EXPECT_NE(table.output.find("hardware capex"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find(" M "), std::string::npos) << table.output;
  EXPECT_EQ(table.output.find("e+0"), std::string::npos) << table.output;
  const Outcome csv = run("tco " + flagship() + " --csv");
  ASSERT_EQ(csv.status, 0) << csv.output;
  EXPECT_EQ(csv.output.rfind("section,item,quantity,quantity_unit,value,unit,source", 0), 0u) << csv.output.substr(0, 200);
}

TEST(Cli, CollectiveSweepPrintsBusBandwidth) {
  const Outcome o = run("collective --topology dgx-h100 --gpus 8 --op all_reduce --algo ring -b 1GiB -e 1GiB");
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("GB/s"), std::string::npos) << o.output;
}

TEST(Cli, RunTcoAndPlanTakeSettings) {
  // The what-if on cluster size: dp is auto in the flagship, so only the GPU count changes.
  const Outcome half = run("run " + flagship() + " --set cluster.gpus=512");
  ASSERT_EQ(half.status, 0) << half.output;
  EXPECT_NE(half.output.find("TP8 PP8 DP8"), std::string::npos) << half.output;
  EXPECT_EQ(half.output.find("e+0"), std::string::npos) << half.output;  // money as "$39.2 M", never 3.9e+07
  const Outcome tco = run("tco " + flagship() + " --set cluster.gpus=512 --set facility.cooling.type=liquid");
  ASSERT_EQ(tco.status, 0) << tco.output;
  const Outcome plan = run("plan " + std::string(CS_SOURCE_DIR) +
                           "/scenarios/gpt3-1.3b-8xh100-dp.yaml --set training.global_batch=64 --top 2 --sample 0 -j 1");
  ASSERT_EQ(plan.status, 0) << plan.output;
  EXPECT_NE(plan.output.find("on 8 GPUs"), std::string::npos) << plan.output;
}

TEST(Cli, ABadSettingIsBadInputNamingIt) {
  const Outcome value = run("run " + flagship() + " --set cluster.gpus=many");
  EXPECT_EQ(value.status, 2) << value.output;
  EXPECT_NE(value.output.find("--set cluster.gpus=many"), std::string::npos) << value.output;
  const Outcome key = run("run " + flagship() + " --set cluster.gpu=8");
  EXPECT_EQ(key.status, 2) << key.output;
  EXPECT_NE(key.output.find("unknown key"), std::string::npos) << key.output;
  const Outcome shape = run("run " + flagship() + " --set cluster.gpus");
  EXPECT_EQ(shape.status, 2) << shape.output;
  const Outcome divides = run("run " + flagship() + " --set cluster.gpus=1000");
  EXPECT_EQ(divides.status, 2) << divides.output;
  EXPECT_NE(divides.output.find("not a multiple of tp*pp*cp"), std::string::npos) << divides.output;
}

TEST(Cli, CollectiveOnPartOfOneNode) {
  // The 2- and 4-GPU all-reduce a first-node buyer measures, on part of one DGX.
  for (const char* gpus : {"2", "4"}) {
    const Outcome o = run(std::string("collective --topology dgx-h100 --gpus ") + gpus +
                          " --op all_reduce --algo ring -b 64MiB -e 64MiB");
    ASSERT_EQ(o.status, 0) << o.output;
    EXPECT_NE(o.output.find(std::string(gpus) + " GPUs (" + gpus + " per group)"), std::string::npos) << o.output;
  }
  EXPECT_EQ(run("collective --topology dgx-h100 --gpus 12 --op all_reduce -b 1MiB -e 1MiB").status, 2);
}

TEST(Cli, JsonToStandardOutputIsPureJson) {
  const std::string cmd = std::string(CLUSTERSIM_BIN) + " run " + flagship() + " --json - 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  EXPECT_EQ(pclose(p), 0);
  EXPECT_TRUE(nlohmann::json::parse(out).contains("step_time_s"));
}

TEST(Cli, TwoRunsAreByteIdentical) {
  const fs::path d = temp_dir();
  ASSERT_EQ(run("run " + flagship() + " --json " + (d / "a.json").string() + " --trace " + (d / "ta.json").string()).status, 0);
  ASSERT_EQ(run("run " + flagship() + " --json " + (d / "b.json").string() + " --trace " + (d / "tb.json").string()).status, 0);
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  EXPECT_EQ(slurp(d / "a.json"), slurp(d / "b.json"));
  EXPECT_EQ(slurp(d / "ta.json"), slurp(d / "tb.json"));
  fs::remove_all(d);
}

struct Malformed {
  const char* name;
  std::string content;
  const char* expected;
};

class MalformedScenario : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedScenario, ExitsTwoWithALocatedMessageAndWritesNothing) {
  const fs::path d = temp_dir();
  const fs::path scenario = d / (std::string(GetParam().name) + ".yaml");
  std::ofstream(scenario, std::ios::binary) << GetParam().content;
  const fs::path json = d / "out.json", trace = d / "trace.json";
  const Outcome o = run("run " + scenario.string() + " --json " + json.string() + " --trace " + trace.string());
  EXPECT_EQ(o.status, 2) << o.output;
  EXPECT_NE(o.output.find(scenario.string()), std::string::npos) << o.output;
  EXPECT_NE(o.output.find(GetParam().expected), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(json));
  EXPECT_FALSE(fs::exists(trace));
  fs::remove_all(d);
}

INSTANTIATE_TEST_SUITE_P(
    Files, MalformedScenario,
    ::testing::Values(Malformed{"empty", "", "empty"},
                      Malformed{"binary", std::string("\0\1\2\3garbage", 11), "binary"},
                      Malformed{"truncated", "format_version: 1\nname: x\nmodel:\n  preset: gpt3-1.3b\ncluster:\n  gpus: 8\n", "missing key"},
                      Malformed{"unknown_key", "format_version: 1\nnmae: x\n", ":2:1: nmae: unknown key"},
                      Malformed{"non_numeric", "format_version: one\n", "format_version: expected a whole number"},
                      Malformed{"syntax", "format_version: 1\nname: [x\n", "YAML syntax error"}),
    [](const ::testing::TestParamInfo<Malformed>& i) { return std::string(i.param.name); });

TEST(Cli, MissingScenarioFileIsBadInput) {
  const Outcome o = run("run /nonexistent/s.yaml");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.output.find("/nonexistent/s.yaml: cannot open file"), std::string::npos);
}

TEST(Cli, ExistingOutputIsNotClobberedOnError) {
  const fs::path d = temp_dir();
  const fs::path json = d / "keep.json";
  std::ofstream(json) << "previous result\n";
  std::ofstream(d / "bad.yaml") << "format_version: 1\nbogus: 1\n";
  EXPECT_EQ(run("run " + (d / "bad.yaml").string() + " --json " + json.string()).status, 2);
  std::ifstream in(json);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "previous result");
  fs::remove_all(d);
}

}  // namespace
