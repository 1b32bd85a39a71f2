#include "sim/serving/serving_config.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/input/input_node.hpp"

namespace cs {
namespace {

/// Reads `text` as the `serving:` section of a scenario (indented under it, so its lines move down one and its
/// columns right two).
ServingConfig parse_text(const std::string& text) {
  std::string doc = "serving:\n  ";
  for (const char c : text) doc += c == '\n' ? std::string("\n  ") : std::string(1, c);
  return parse_serving_config(InputNode::parse(doc, "s.yaml").at("serving"));
}

/// The message of the InputError that reading `text` throws ("" when none does).
std::string config_error(const std::string& text) {
  try {
    (void)parse_text(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ServingConfig, ReadsEverySection) {
  const ServingConfig c = parse_text(R"(deployment: {tp: 4, pp: 2, ep: 2, replicas: 8, routing: least-loaded, weights: fp8, kv_cache: fp8}
engine:
  batching: chunked-prefill
  max_seqs: 128
  token_budget: 1024
  block_size: 32
  memory_utilization: 0.85
  preemption: swap
  swap_bandwidth: 40GB/s
  prefix_cache_hit_rate: 0.3
  cuda_graphs: false
  host_launch_cost: 10us
  iteration_overhead: 1ms
load:
  rate: 12.5
  prompt: {dist: lognormal, mean: 2000, sigma: 0.7, max: 16000}
  output: {dist: uniform, min: 10, max: 300}
slo: {ttft: 1s, tpot: 40ms}
duration: 1h
drain: 5min
seed: 7
)");
  EXPECT_EQ(c.deployment.gpus(), 64);
  EXPECT_EQ(c.deployment.routing, Routing::least_loaded);
  EXPECT_EQ(c.deployment.weights, DType::fp8);
  EXPECT_EQ(c.engine.batching, Batching::chunked_prefill);
  EXPECT_EQ(c.engine.token_budget, 1024);
  EXPECT_EQ(c.engine.preemption, Preemption::swap);
  EXPECT_DOUBLE_EQ(c.engine.swap_bandwidth.value(), 40e9);
  EXPECT_FALSE(c.engine.cuda_graphs);
  EXPECT_EQ(c.engine.host_launch_cost, Time::us(10));
  EXPECT_DOUBLE_EQ(c.load.rate, 12.5);
  EXPECT_EQ(c.load.prompt.kind, LengthKind::lognormal);
  EXPECT_DOUBLE_EQ(c.load.prompt.mean, 2000);
  EXPECT_EQ(c.load.output.max, 300);
  EXPECT_EQ(c.slo.tpot, Time::ms(40));
  EXPECT_EQ(c.duration, Time::from_seconds(3600));
  EXPECT_EQ(c.drain, Time::from_seconds(300));
  EXPECT_EQ(c.seed, 7);
}

TEST(ServingConfig, DefaultsAreVllmsAndTheLoadIsRequired) {
  const ServingConfig c = parse_text("load: {rate: 2}\n");
  EXPECT_EQ(c.engine.batching, Batching::continuous);
  EXPECT_EQ(c.engine.max_seqs, 256);
  EXPECT_EQ(c.engine.max_batched_tokens, 8192);
  EXPECT_EQ(c.engine.block_size, 16);
  EXPECT_DOUBLE_EQ(c.engine.memory_utilization, 0.9);
  EXPECT_FALSE(c.duration.has_value());
  EXPECT_NE(config_error("deployment: {tp: 2}\n").find("load"), std::string::npos);
}

TEST(ServingConfig, DiurnalTakesTwentyFourRates) {
  std::string rates = "[";
  for (int h = 0; h < 24; ++h) rates += (h ? ", " : "") + std::to_string(h);
  const ServingConfig c = parse_text("load: {arrivals: diurnal, diurnal: " + rates + "]}\n");
  ASSERT_EQ(c.load.diurnal.size(), 24u);
  EXPECT_DOUBLE_EQ(c.load.diurnal[23], 23.0);
  EXPECT_EQ(config_error("load: {arrivals: diurnal, diurnal: [1, 2, 3]}\n"),
            "s.yaml:2:38: serving.load.diurnal: needs 24 rates (requests/s in each hour of the day), got 3");
  EXPECT_NE(config_error("load: {arrivals: diurnal}\n").find("diurnal"), std::string::npos);
}

TEST(ServingConfig, KeysThatDoNotApplyAreRefusedWhereTheyStand) {
  EXPECT_EQ(config_error("engine: {batching: continuous, token_budget: 256}\nload: {rate: 1}\n"),
            "s.yaml:2:48: serving.engine.token_budget: applies to batching: chunked-prefill only (max_batched_tokens "
            "limits the others)");
  EXPECT_NE(config_error("engine: {batching: chunked-prefill, max_batched_tokens: 256}\nload: {rate: 1}\n")
                .find("does not apply to chunked-prefill"),
            std::string::npos);
  EXPECT_NE(config_error("load: {arrivals: trace, trace: t.csv, rate: 3}\n").find("applies to arrivals: poisson only"),
            std::string::npos);
  EXPECT_NE(config_error("load: {rate: 1, prompt: {dist: fixed, mean: 3}}\n").find("applies to dist: lognormal only"),
            std::string::npos);
  EXPECT_NE(config_error("load: {rate: 1, output: {dist: trace}}\n").find("dist: trace needs arrivals: trace"),
            std::string::npos);
  EXPECT_NE(config_error("deployment: {tp: 4, ep: 3}\nload: {rate: 1}\n").find("ep must divide tp"), std::string::npos);
  EXPECT_NE(config_error("engine: {batching: dynamic}\nload: {rate: 1}\n").find("static, continuous or chunked-prefill"),
            std::string::npos);
  EXPECT_NE(config_error("deployment: {weights: fp4}\nload: {rate: 1}\n").find("bf16 or fp8"), std::string::npos);
  EXPECT_NE(config_error("load: {rate: 1}\nspeed: 3\n").find("speed"), std::string::npos);
}

TEST(ServingConfig, ATraceTakesItsLengthsUnlessTold) {
  const ServingConfig c = parse_text("load: {arrivals: trace, trace: azure.csv}\n");
  EXPECT_EQ(c.load.trace, "azure.csv");
  EXPECT_EQ(c.load.prompt.kind, LengthKind::trace);
  EXPECT_EQ(c.load.output.kind, LengthKind::trace);
  const ServingConfig d = parse_text("load: {arrivals: trace, trace: azure.csv, output: {dist: fixed, value: 64}}\n");
  EXPECT_EQ(d.load.prompt.kind, LengthKind::trace);
  EXPECT_EQ(d.load.output.kind, LengthKind::fixed);
}

TEST(ServingConfig, ADisaggregatedDeploymentHasTwoPools) {
  const ServingConfig c = parse_text(
      "deployment: {tp: 4, prefill: {replicas: 1}, decode: {replicas: 3, tp: 2}}\nload: {rate: 1}\n");
  ASSERT_TRUE(c.deployment.disaggregated());
  EXPECT_EQ(c.deployment.pool(PoolRole::prefill).tp, 4);  // the deployment's
  EXPECT_EQ(c.deployment.pool(PoolRole::decode).tp, 2);
  EXPECT_EQ(c.deployment.pool(PoolRole::decode).replicas, 3);
  EXPECT_EQ(c.deployment.gpus(), 1 * 4 + 3 * 2);
  EXPECT_FALSE(parse_text("load: {rate: 1}\n").deployment.disaggregated());
}

TEST(ServingConfig, BadPoolsAreRefusedWhereTheyStand) {
  // No prefill replica: the count must be positive, at its key (line 2 under serving:, column 36).
  EXPECT_EQ(config_error("deployment: {prefill: {replicas: 0}, decode: {replicas: 2}}\nload: {rate: 1}\n"),
            "s.yaml:2:36: serving.deployment.prefill.replicas: must be a positive whole number");
  EXPECT_NE(config_error("deployment: {prefill: {replicas: 1}}\nload: {rate: 1}\n")
                .find("serving.deployment.prefill: a disaggregated deployment needs both pools: give decode too"),
            std::string::npos);
  const std::string count = config_error("deployment: {decode: {tp: 2}, prefill: {replicas: 1}}\nload: {rate: 1}\n");
  EXPECT_EQ(count, "s.yaml:2:24: serving.deployment.decode: missing key \"replicas\"");
  EXPECT_NE(config_error("deployment: {replicas: 4, prefill: {replicas: 1}, decode: {replicas: 1}}\nload: {rate: 1}\n")
                .find("serving.deployment.replicas: does not apply to a disaggregated deployment"),
            std::string::npos);
  EXPECT_NE(config_error("deployment: {tp: 4, ep: 4, prefill: {replicas: 1}, decode: {replicas: 1, tp: 2}}\n"
                         "load: {rate: 1}\n")
                .find("serving.deployment.decode: ep 4 must divide this pool's tp (2)"),
            std::string::npos);
  EXPECT_NE(config_error("deployment: {prefill: {replicas: 1}, decode: {replicas: 1}}\nengine: {batching: static}\n"
                         "load: {rate: 1}\n")
                .find("s.yaml:3:22: serving.engine.batching: static batching cannot hand requests"),
            std::string::npos);
}

TEST(ServingConfig, EveryKeyIsDeclaredOnce) {
  const ParamSection& s = serving_params().schema();
  EXPECT_EQ(s.key, "serving");
  ASSERT_NE(s.find_param("engine.token_budget"), nullptr);
  ASSERT_NE(s.find_param("load.prompt.sigma"), nullptr);
  ASSERT_NE(s.find_param("deployment.kv_cache"), nullptr);
  ASSERT_NE(s.find_param("deployment.prefill.replicas"), nullptr);
  EXPECT_EQ(s.find_param("deployment.decode.tp")->default_text, "deployment.tp");
  EXPECT_EQ(s.find_param("engine.batching")->choices,
            (std::vector<std::string>{"static", "continuous", "chunked-prefill"}));
  EXPECT_EQ(s.find_param("engine.block_size")->default_text, "16");
  for (const auto* key : {"deployment", "engine", "load", "slo"}) EXPECT_NE(s.find_section(key), nullptr) << key;
}

}  // namespace
}  // namespace cs
