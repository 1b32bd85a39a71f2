// An inference service as a scenario: a `serving:` section instead of `training:` loads through the same loader
// (located errors), runs request by request through run_scenario, and is priced by the same facility layer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/core/error.hpp"
#include "sim/serving/serving_report.hpp"
#include "sim/input/input_node.hpp"
#include "sim/report/json_result.hpp"
#include "sim/report/text_summary.hpp"
#include "sim/scenario/runner.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs {
namespace {

std::string service(const std::string& gpus, const std::string& deployment, const std::string& load,
                    const std::string& extra = "") {
  return "format_version: 1\nname: a service\nmodel:\n  preset: llama3-8b\ncluster:\n  gpus: " + gpus +
         "\n  topology: dgx-h100\n  profile: h100-sxm\n" + extra + "serving:\n  deployment: " + deployment +
         "\n  load: " + load + "\n  duration: 60s\n";
}

std::string located(const std::string& text, const std::string& name) {
  try {
    (void)load_scenario_text(text, name);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ServiceScenario, RunsRequestByRequestAndIsPriced) {
  const Scenario sc = load_scenario_text(
      service("8", "{tp: 2, replicas: 4}", "{arrivals: poisson, rate: 5, prompt: {value: 512}, output: {value: 64}}"),
      "svc.yaml");
  ASSERT_TRUE(sc.serving);
  const RunResult r = run_scenario(sc);
  ASSERT_TRUE(r.serving);
  EXPECT_EQ(r.gpus, 8);
  EXPECT_GT(r.serving->finished, 200);  // about 300 arrive in a minute at 5/s
  EXPECT_EQ(r.serving->unfinished, 0);
  EXPECT_GT(r.serving->ttft.p50_s, 0);
  EXPECT_GT(r.serving->tpot.p50_s, 0);
  EXPECT_LE(r.serving->tpot.p50_s, r.serving->tpot.p99_s);
  ASSERT_TRUE(r.tco) << (r.warnings.empty() ? "" : r.warnings.front());
  // The window's cost over the tokens served: what the JSON's cost object says.
  const auto j = to_json(sc, r);
  EXPECT_EQ(j["kind"], "serving");
  const double seconds = r.serving->makespan.seconds();
  const double tokens = (r.serving->input_tokens_per_s + r.serving->output_tokens_per_s) * seconds;
  EXPECT_NEAR(j["cost"]["usd_per_million_tokens"].get<double>(), r.tco->run_cost.value() / tokens * 1e6, 1e-9);
  EXPECT_GT(j["cost"]["usd_per_million_output_tokens"].get<double>(), j["cost"]["usd_per_million_tokens"].get<double>());
  // Priced separately: the window split by prefill and decode GPU time, so the input and output parts add up to it.
  const auto& split = j["cost"]["split_by_gpu_time"];
  const double input_tokens = r.serving->input_tokens_per_s * seconds, output_tokens = r.serving->output_tokens_per_s * seconds;
  EXPECT_NEAR(split["usd_per_million_input_tokens"].get<double>() * input_tokens / 1e6 +
                  split["usd_per_million_output_tokens"].get<double>() * output_tokens / 1e6,
              r.tco->run_cost.value(), 1e-6 * r.tco->run_cost.value());
  EXPECT_NEAR(split["usd_per_million_input_tokens"].get<double>() * input_tokens / 1e6,
              r.tco->run_cost.value() * r.serving->prefill_share, 1e-6 * r.tco->run_cost.value());
  const std::string summary = text_summary(sc, r);
  EXPECT_NE(summary.find("time to first token"), std::string::npos) << summary;
  EXPECT_NE(summary.find("per million tokens"), std::string::npos) << summary;
}

TEST(ServiceScenario, ReplicasAutoFollowTheClusterSize) {
  const std::string shipped = std::string(CS_SOURCE_DIR) + "/scenarios/llama3-70b-serving-32xh100.yaml";
  EXPECT_EQ(load_scenario(shipped).serving->deployment.replicas, 8);  // 32 / TP4
  const Scenario half = load_scenario(InputNode::load_file(shipped, {{"cluster.gpus", "16"}}));
  EXPECT_EQ(half.serving->deployment.replicas, 4);
  const std::string odd = located(service("8", "{tp: 3, replicas: auto}", "{arrivals: poisson, rate: 5}"), "odd.yaml");
  EXPECT_NE(odd.find("serving.deployment.replicas"), std::string::npos) << odd;
  EXPECT_NE(odd.find("not a multiple of tp x pp = 3 x 1"), std::string::npos) << odd;
}

TEST(ServiceScenario, BadServicesAreLocated) {
  const std::string load = "{arrivals: poisson, rate: 5}";
  // The deployment must fill the cluster.
  const std::string gpus = located(service("16", "{tp: 2, replicas: 4}", load), "gpus.yaml");
  EXPECT_NE(gpus.find("gpus.yaml:6:"), std::string::npos) << gpus;
  EXPECT_NE(gpus.find("= 8"), std::string::npos) << gpus;
  // Training and serving together, or neither.
  const std::string both = located(service("8", "{tp: 2, replicas: 4}", load,
                                           "parallelism: {tp: 2}\ntraining: {global_batch: 8}\n"),
                                   "both.yaml");
  EXPECT_NE(both.find("not both"), std::string::npos) << both;
  const std::string neither = located(
      "format_version: 1\nname: x\nmodel: {preset: llama3-8b}\ncluster: {gpus: 8, topology: dgx-h100, profile: h100-sxm}\n",
      "neither.yaml");
  EXPECT_NE(neither.find("training: section"), std::string::npos) << neither;
  // A service is laid out by its deployment, not parallelism.
  const std::string layout = located(service("8", "{tp: 2, replicas: 4}", load, "parallelism: {tp: 2}\n"), "p.yaml");
  EXPECT_NE(layout.find("serving.deployment"), std::string::npos) << layout;
  // TP within a node.
  const std::string wide = located(service("16", "{tp: 16, replicas: 1}", load), "wide.yaml");
  EXPECT_NE(wide.find("more than one"), std::string::npos) << wide;
}

TEST(ServiceScenario, ADisaggregatedServiceReportsItsPoolsAndTransfers) {
  // 8 GPUs of one DGX H100: 2 prefill replicas of TP2 (GPUs 0-3) and 2 decode replicas of TP2 (GPUs 4-7).
  const Scenario sc = load_scenario_text(
      service("8", "{tp: 2, prefill: {replicas: 2}, decode: {replicas: 2}}",
              "{arrivals: poisson, rate: 5, prompt: {value: 512}, output: {value: 64}}"),
      "disagg.yaml");
  ASSERT_TRUE(sc.serving->deployment.disaggregated());
  const RunResult r = run_scenario(sc);
  ASSERT_TRUE(r.serving && r.serving->disaggregated);
  EXPECT_EQ(r.gpus, 8);
  EXPECT_EQ(r.serving->unfinished, 0);
  const DisaggregatedResult& d = *r.serving->disaggregated;
  // Every finished request (64 output tokens each) had its cache sent. Llama 3 8B holds 32 layers x 8 KV heads x
  // 128 x 2 (K, V) x 2 B = 128 KiB per token; each of a decode replica's 2 GPUs receives its 4 heads' half, so a
  // request's 512 prompt tokens move 512 x 128 KiB in all.
  EXPECT_EQ(d.kv_transfer.transfers, r.serving->finished);
  EXPECT_DOUBLE_EQ(d.kv_transfer.bytes, static_cast<double>(d.kv_transfer.transfers) * 512 * 131072);
  EXPECT_GT(d.kv_transfer.time.p50_s, 0);
  // Prefill replicas run only prompts; decode replicas only decodes (nothing was preempted to recompute).
  EXPECT_DOUBLE_EQ(d.prefill.prefill_share, 1.0);
  EXPECT_EQ(d.decode.preemptions, 0);
  EXPECT_DOUBLE_EQ(d.decode.prefill_share, 0.0);
  // The whole deployment's busy time is the pools' (equal GPU counts here: their mean).
  EXPECT_NEAR(r.serving->gpu_busy, (d.prefill.gpu_busy + d.decode.gpu_busy) / 2, 1e-12);
  ASSERT_TRUE(r.tco);
  const auto j = to_json(sc, r);
  for (const char* key : {"prefill", "decode", "kv_transfer"}) {
    EXPECT_TRUE(j["serving"]["disaggregated"].contains(key)) << key;
  }
  EXPECT_TRUE(j["serving"]["disaggregated"]["kv_transfer"]["time_s"].contains("p99"));
  const std::string summary = text_summary(sc, r);
  EXPECT_NE(summary.find("KV transfers"), std::string::npos) << summary;
  EXPECT_NE(summary.find("disaggregated, prefill 2 x TP2 and decode 2 x TP2"), std::string::npos) << summary;
}

TEST(ServiceScenario, BadDisaggregatedServicesAreLocated) {
  const std::string load = "{arrivals: poisson, rate: 5}";
  // The pools must fill the cluster: 1 x TP2 + 2 x TP2 = 6 GPUs of 8.
  const std::string gpus =
      located(service("8", "{tp: 2, prefill: {replicas: 1}, decode: {replicas: 2}}", load), "pools.yaml");
  EXPECT_NE(gpus.find("pools.yaml:6:"), std::string::npos) << gpus;
  EXPECT_NE(gpus.find("prefill 1 x tp 2 x pp 1 + decode 2 x tp 2 x pp 1 = 6 GPUs"), std::string::npos) << gpus;
  // A pool's TP within a node.
  const std::string wide =
      located(service("24", "{tp: 8, prefill: {replicas: 1}, decode: {replicas: 1, tp: 16}}", load), "wide.yaml");
  EXPECT_NE(wide.find("serving.deployment.decode: tp 16 spans more than one 8-GPU node"), std::string::npos) << wide;
  // A pool whose weights do not fit its GPUs at its own tp says which pool, with the memory plan's numbers: Llama 3
  // 8B's 15 GiB of weights on one GPU do not fit 20% of 80 GB; at tp 4 the decode pool's would.
  const Scenario small = load_scenario_text(
      service("8", "{tp: 4, prefill: {replicas: 4, tp: 1}, decode: {replicas: 1}}\n  engine: {memory_utilization: 0.2}",
              load),
      "small.yaml");
  try {
    (void)run_scenario(small);
    ADD_FAILURE() << "the prefill pool's weights should not fit";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "serving.deployment.prefill");
    EXPECT_NE(e.message().find("the weights do not fit"), std::string::npos) << e.what();
  }
}

TEST(ServiceScenario, ATraceIsReadBesideTheScenario) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "service_trace";
  std::filesystem::create_directories(dir);
  {
    std::ofstream trace(dir / "requests.csv");
    trace << "arrival_s,prompt_tokens,output_tokens\n";
    for (int i = 0; i < 40; ++i) trace << 0.1 * i << "," << 100 + 10 * i << ",16\n";
  }
  const std::string text = service("8", "{tp: 2, replicas: 4}", "{arrivals: trace, trace: requests.csv}");
  {
    std::ofstream out(dir / "svc.yaml");
    out << text;
  }
  const Scenario sc = load_scenario((dir / "svc.yaml").string());
  EXPECT_EQ(sc.serving->load.trace, (dir / "requests.csv").string());
  const RunResult r = run_scenario(sc);
  EXPECT_EQ(r.serving->arrived, 40);
  EXPECT_EQ(r.serving->finished, 40);
  // A trace that is not there is bad input at its key.
  const std::string missing =
      located(service("8", "{tp: 2, replicas: 4}", "{arrivals: trace, trace: nowhere.csv}"), "m.yaml");
  EXPECT_NE(missing.find("serving.load.trace"), std::string::npos) << missing;
}

}  // namespace
}  // namespace cs
