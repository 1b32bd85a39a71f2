// Megatron-Core 0.15.4 on Transformer Engine 2.9 (NeMo 25.11's stack), one H200 (H200 run 15,
// profiles/h200-calibration/run15-mcore-te, calibrate/studies/mcore_te_step_study.py): Qwen3-30B-A3B's layer,
// dense (FFN 6,144) or MoE (16 experts of FFN 768, top-8, force-balanced, dropless alltoall dispatcher at EP 1),
// bf16 or fp8 with current scaling, micro-batches of 1 x 128 tokens (the GPU idles: the host's time) and 2 x 4,096.
// One layer's time is the difference of the 6- and 2-layer models over 4. The model prices such a layer with the
// launch costs run 15 measured (profiles/frameworks/megatron-core-te-2025.yaml: host_factor per operator,
// grouped_gemm_launch per further grouped GEMM, native_kernel_launch per further cast kernel), fitted on three of the 1 x 128 cases.
#include <gtest/gtest.h>

#include <cstdio>

#include "measured_steps.hpp"

namespace cs {
namespace {

Scenario te_layers(int layers, bool moe, bool fp8, int batch, int seq) {
  Scenario sc;
  sc.name = "mcore-te";
  sc.model = testing::mcore_te_study_layer(layers, moe, seq);
  sc.gpus = 8;
  sc.topology = load_topology("dgx-h200", 8);
  sc.profile = find_device_profile("h200");
  sc.training.micro_batch = batch;
  sc.training.global_batch = 4 * batch;
  sc.training.seq_len = seq;
  sc.training.precision = fp8 ? DType::fp8 : DType::bf16;
  sc.training.fp8_recipe = Fp8Recipe::current;
  apply_framework(find_framework_profile("megatron-core-te-2025"), sc.training);
  return sc;
}

/// One layer's forward and backward per micro-batch, ms: the 6-layer step less the 2-layer one, over 4 layers and
/// the step's 4 micro-batches (the optimizer left out, as the study times forward_backward alone).
double layer_ms(bool moe, bool fp8, int batch, int seq) {
  const auto per_micro_batch = [&](int layers) {
    const RunResult r = run_scenario(te_layers(layers, moe, fp8, batch, seq));
    return (r.step.step_time - r.step.breakdown.optimizer).seconds() * 1e3 / 4;
  };
  return (per_micro_batch(6) - per_micro_batch(2)) / 4;
}

/// One layer's time, ms, from a study's 2- and 6-layer entries that `match` (the 6-layer model's time per micro-batch
/// less the 2-layer one's, over 4 layers).
template <class Match>
double layer_ms_of(const std::vector<nlohmann::json>& files, const Match& match) {
  double ms[2] = {0, 0};
  for (const auto& results : files) {
    for (const auto& e : results) {
      if (e.contains("error") || !match(e)) continue;
      ms[e["layers"].get<int>() == 6 ? 1 : 0] = e["ms_per_micro_batch_median"].get<double>();
    }
  }
  EXPECT_GT(ms[0], 0.0);
  EXPECT_GT(ms[1], 0.0);
  return (ms[1] - ms[0]) / 4;
}

/// The measured layer of run 15, ms: `config` and `precision` at batch x seq.
double measured_layer_ms(const std::string& config, const std::string& precision, int batch, int seq) {
  return layer_ms_of({testing::h200_results("run15-mcore-te/mcore_te_step_first.json"),
                      testing::h200_results("run15-mcore-te/mcore_te_step_moe.json")},
                     [&](const nlohmann::json& e) {
                       return e["config"] == config && e["precision"] == precision && e["batch"] == batch &&
                              e["seq"] == seq;
                     });
}

struct Case {
  const char* config;
  const char* precision;
  int batch, seq;
  double bound;  ///< relative error allowed
};

// The host-bound layers (1 x 128 tokens): dense bf16, MoE bf16 and MoE fp8 are what the constants were fitted on
// (within 1%); dense fp8 is not (its casts cost the host more than an operator each: -16%). At 2 x 4,096 tokens
// (row 190's micro-batch) the layers run at +2% (dense bf16), -20% (dense fp8), +8% (MoE bf16) and -24% (MoE fp8,
// where the dispatcher's host synchronisation drains the host's lead more than the model's composition says).
TEST(MegatronTeHost, Run15LayersWithinTheirBounds) {
  for (const Case& c : {Case{"dense", "bf16", 1, 128, 0.03}, Case{"moe", "bf16", 1, 128, 0.03},
                        Case{"moe", "fp8cs", 1, 128, 0.03}, Case{"dense", "fp8cs", 1, 128, 0.20},
                        Case{"dense", "bf16", 2, 4096, 0.05}, Case{"dense", "fp8cs", 2, 4096, 0.25},
                        Case{"moe", "bf16", 2, 4096, 0.12}, Case{"moe", "fp8cs", 2, 4096, 0.28}}) {
    const std::string config = c.config;
    const double predicted = layer_ms(config == "moe", std::string(c.precision) != "bf16", c.batch, c.seq);
    const double measured = measured_layer_ms(config == "moe" ? "moe" : "dense", c.precision, c.batch, c.seq);
    std::printf("%s %s %dx%d: predicted %.2f ms per layer, measured %.2f ms (%+.1f%%)\n", c.config, c.precision,
                c.batch, c.seq, predicted, measured, (predicted / measured - 1) * 100);
    EXPECT_NEAR(predicted / measured, 1.0, c.bound) << c.config << " " << c.precision << " " << c.batch << "x" << c.seq;
  }
}

/// Megatron-Core's own merged forward-backward schedule against its plain one, same layer and host (H100 run 12,
/// profiles/h100-calibration/run12-mcore-merged): at 1 x 128 tokens the GPU idles, so the difference per layer is the
/// host's, over the layer's 10 schedule-node calls (5 forward, 5 backward). pytorch-eager.yaml's
/// schedule_node_host_synced is their mean.
TEST(MegatronTeHost, Run12MergedScheduleNodeCost) {
  const nlohmann::json results = testing::measured_results("h100-calibration/run12-mcore-merged/mcore_te_merged.json");
  const auto per_layer = [&](bool merged, const std::string& precision, int seq) {
    return layer_ms_of({results}, [&](const nlohmann::json& e) {
      return e["a2a_overlap"] == merged && e["precision"] == precision && e["seq"] == seq;
    });
  };
  const Time synced = find_framework_profile("megatron-core-te-2025").costs.schedule_node_host_synced;
  double sum = 0;
  for (const char* precision : {"bf16", "fp8cs"}) {
    const double node_us = (per_layer(true, precision, 128) - per_layer(false, precision, 128)) / 10 * 1e3;
    std::printf("%s: %.0f us per schedule-node call\n", precision, node_us);
    EXPECT_GT(node_us, 0.8 * synced.seconds() * 1e6) << precision;
    EXPECT_LT(node_us, 1.2 * synced.seconds() * 1e6) << precision;
    sum += node_us;
  }
  EXPECT_NEAR(sum / 2, synced.seconds() * 1e6, 10.0);
  // At row 190's micro-batch (2 x 4,096) the bf16 layer stays host-bound (22.6 ms, the merged schedule's host time
  // again), while the fp8 layer takes 38.7 ms, 8.3 ms more than its host time: not modelled (docs/validation.md).
}

}  // namespace
}  // namespace cs
