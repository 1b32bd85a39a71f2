// `clustersim run` and `clustersim plan` on the shipped disaggregated service, as a user runs them: the JSON keys
// its report promises (docs/serving.md) and the prefill:decode search's answer.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "run_cli.hpp"

namespace {

using cs::e2e::run_cli;

std::string disaggregated_service() {
  return std::string(CS_SOURCE_DIR) + "/scenarios/llama3-70b-serving-disaggregated-16xh100.yaml";
}

TEST(DisaggregatedCli, TheShippedServiceReportsPoolsTransfersAndCost) {
  const auto o = run_cli("run " + disaggregated_service() + " --set serving.duration=120s --json -",
                         /*with_stderr=*/false);
  ASSERT_EQ(o.status, 0) << o.output;
  const auto j = nlohmann::json::parse(o.output);
  EXPECT_EQ(j["kind"], "serving");
  EXPECT_EQ(j["gpus"], 16);
  const auto& s = j["serving"];
  for (const char* latency : {"ttft_s", "tpot_s", "e2e_s"}) {
    for (const char* p : {"p50", "p90", "p99"}) EXPECT_TRUE(s[latency].contains(p)) << latency << " " << p;
  }
  EXPECT_TRUE(s.contains("goodput_requests_per_s"));
  const auto& d = s["disaggregated"];
  for (const char* pool : {"prefill", "decode"}) {
    for (const char* key : {"replicas", "gpus_per_replica", "gpu_busy_fraction", "prefill_time_share",
                            "mean_decode_batch", "iterations", "kv_cache", "weights_per_gpu_bytes"}) {
      EXPECT_TRUE(d[pool].contains(key)) << pool << "." << key;
    }
  }
  EXPECT_EQ(d["prefill"]["replicas"], 3);
  EXPECT_EQ(d["decode"]["replicas"], 1);
  EXPECT_EQ(d["decode"]["gpus_per_replica"], 4);
  const auto& kv = d["kv_transfer"];
  for (const char* key : {"transfers", "bytes", "time_s", "wait_s"}) EXPECT_TRUE(kv.contains(key)) << key;
  EXPECT_GT(kv["transfers"].get<int>(), 0);
  EXPECT_GT(kv["time_s"]["p99"].get<double>(), 0.0);
  // Llama 3 70B's cache is 80 layers x 8 KV heads x 128 x 2 x 2 B = 320 KiB per token: at least a 16-token prompt's.
  EXPECT_GE(kv["bytes"].get<double>(), kv["transfers"].get<double>() * 16 * 327680);
  ASSERT_TRUE(j["cost"].is_object());
  EXPECT_GT(j["cost"]["usd_per_million_tokens"].get<double>(), 0.0);
}

TEST(DisaggregatedCli, PlanSearchesThePrefillDecodeRatio) {
  const auto o =
      run_cli("plan " + disaggregated_service() + " -j 1 --probe-seconds 120 --json -", /*with_stderr=*/false);
  ASSERT_EQ(o.status, 0) << o.output;
  const auto j = nlohmann::json::parse(o.output);
  EXPECT_EQ(j["kind"], "serving_plan");
  // Every prefill count beside one TP4 decode replica on 16 GPUs: 1, 2, 3.
  ASSERT_EQ(j["deployments"].size(), 3u);
  const auto& best = j["best"];
  ASSERT_TRUE(best.is_object());
  EXPECT_TRUE(best["replicas"].is_null());
  const int gpus = 4 * (best["prefill"]["replicas"].get<int>() + best["decode"]["replicas"].get<int>());
  EXPECT_EQ(best["gpus"], gpus);
  EXPECT_LE(gpus, 16);
  EXPECT_GE(best["slo_attainment"].get<double>(), 0.99);
  // Each split is at its fewest decode replicas: the cheapest that meets the SLO is first.
  for (const auto& d : j["deployments"]) {
    if (d["meets_slo"].get<bool>()) {
      EXPECT_GE(d["cost_usd_per_hour"].get<double>(), best["cost_usd_per_hour"].get<double>() - 0.01);
    }
  }
}

}  // namespace
