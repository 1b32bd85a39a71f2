// The Blackwell profiles' fused attention (datasheet profiles: useful FLOPs over the bf16 peak times one
// attention_efficiency, taken from a different cuDNN measurement) against cuDNN's own published SDPA training
// benchmark on a GB200 and a GB300 (data/checks/cudnn_sdpa_blackwell.csv: DeepSeek-V3's 192/128-wide heads,
// Llama 3.1 405B's grouped 128-wide heads, GPT-OSS's 128-token window; 2,048-32,768 tokens; forward and
// backward). The benchmark times short bursts, so the shapes are priced at the published (burst) rates
// (RooflineCostModel), not at the clock a busy GPU holds under its power limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "sim/hardware/compute_cost_model.hpp"
#include "sim/hardware/device_profile.hpp"
#include "sim/hardware/roofline_cost_model.hpp"
#include "cudnn_benchmark_rows.hpp"

namespace cs {
namespace {

using testing::median;
using testing::SdpaRow;
using testing::shape_of;

std::vector<SdpaRow> published_rows() { return testing::cudnn_benchmark_rows("cudnn_sdpa_blackwell.csv"); }

TEST(BlackwellAttention, PublishedCudnnBenchmarkIsRead) {
  const std::vector<SdpaRow> rows = published_rows();
  ASSERT_EQ(rows.size(), 180u);  // 3 shapes x 2 GPUs x 3 formats x 5 lengths x 2 passes
  std::map<std::string, int> per_format;
  for (const SdpaRow& r : rows) ++per_format[r.dtype];
  EXPECT_EQ(per_format["bfloat16"], 60);
  EXPECT_EQ(per_format["fp8"], 60);
  EXPECT_EQ(per_format["mxfp8"], 60);
}

// The 16-bit rows of full causal attention (DeepSeek-V3's and Llama's heads). One efficiency for both passes
// prices a training step's forward-plus-backward pair within 30% of cuDNN's time (median 11.6%): at 4,096-
// 32,768 tokens within 13.5% on the GB200 and 28.4% on the GB300, at 2,048 tokens 14-30% fast. The passes
// apart are further off: cuDNN's forward reaches 0.56-0.80 of the bf16 peak and its backward 0.41-0.60, where
// the profiles hold 0.5 for both (docs/validation.md, "Blackwell attention against cuDNN's benchmark"), so a
// forward is priced from 13% fast to 59% slow and a backward from 35% fast to 21% slow. These bounds hold what
// the model does now; they are not a claim that it is right per pass.
TEST(BlackwellAttention, SixteenBitFullAttentionMatchesCudnnsBenchmark) {
  const std::vector<SdpaRow> rows = published_rows();
  std::map<std::string, std::unique_ptr<RooflineCostModel>> models;
  for (const char* gpu : {"gb200", "gb300"}) {
    models[gpu] = std::make_unique<RooflineCostModel>(find_device_profile(gpu));
  }
  std::map<std::string, std::pair<double, double>> pairs;  // gpu/shape/seq -> (predicted, measured) fwd + bwd
  std::vector<double> pair_errors;
  for (const SdpaRow& r : rows) {
    if (r.dtype != "bfloat16" || r.window != 0) continue;
    const double predicted = models.at(r.gpu)->attention(shape_of(r)).seconds() * 1e3;
    const double error = predicted / r.ms - 1.0;
    std::printf("%s %-8s seq %6lld %s: cuDNN %8.3f ms, model %8.3f ms (%+.1f%%)\n", r.gpu.c_str(), r.shape.c_str(),
                static_cast<long long>(r.seq), r.pass.c_str(), r.ms, predicted, 100.0 * error);
    EXPECT_LT(std::abs(error), 0.6) << r.gpu << " " << r.shape << " " << r.seq << " " << r.pass;
    auto& p = pairs[r.gpu + "/" + r.shape + "/" + std::to_string(r.seq)];
    p.first += predicted;
    p.second += r.ms;
  }
  ASSERT_EQ(pairs.size(), 20u);
  for (const auto& [key, p] : pairs) {
    const double error = p.first / p.second - 1.0;
    pair_errors.push_back(std::abs(error));
    std::printf("%s forward + backward: %+.1f%%\n", key.c_str(), 100.0 * error);
    EXPECT_LT(std::abs(error), 0.3) << key;
  }
  EXPECT_LT(median(pair_errors), 0.12);
}

// fp8 attention (Transformer Engine's fp8_dot_product_attention, both scalings): the profiles hold cuDNN's
// forward + backward speed-up over 16-bit at 4,096-8,192 tokens per head width (profiles' attention_fp8), so the
// model's fp8 pairs reproduce the measured ones there within 6%: per-tensor fp8 1.08-1.77x, MXFP8 0.97-1.41x
// (wider heads gain more). A Hopper profile has no such table and prices fp8 attention as 16-bit.
TEST(BlackwellAttention, Fp8AttentionRunsAtCudnnsMeasuredSpeedup) {
  const std::vector<SdpaRow> rows = published_rows();
  std::map<std::string, double> ms;  // gpu/shape/seq/format -> fwd + bwd
  for (const SdpaRow& r : rows) {
    if (r.window == 0 && (r.seq == 4096 || r.seq == 8192)) ms[r.gpu + "/" + r.shape + "/" + std::to_string(r.seq) + "/" + r.dtype] += r.ms;
  }
  int checked = 0;
  for (const char* gpu : {"gb200", "gb300"}) {
    const RooflineCostModel m(find_device_profile(gpu));
    for (const SdpaRow& r : rows) {
      if (r.gpu != gpu || r.window != 0 || r.dtype != "bfloat16" || r.pass != "fwd" || (r.seq != 4096 && r.seq != 8192)) continue;
      for (const auto& [name, d] : {std::pair{"fp8", DType::fp8}, std::pair{"mxfp8", DType::mxfp8}}) {
        AttentionShape f = shape_of(r), b = shape_of(r);
        b.backward = true;
        const double bf16 = (m.attention(f) + m.attention(b)).seconds();
        f.dtype = b.dtype = d;
        f.fp8 = b.fp8 = true;
        const double quantized = (m.attention(f) + m.attention(b)).seconds();
        const std::string key = r.gpu + "/" + r.shape + "/" + std::to_string(r.seq) + "/";
        const double measured = ms.at(key + "bfloat16") / ms.at(key + name), model = bf16 / quantized;
        EXPECT_NEAR(model / measured, 1.0, 0.06) << key << name << ": model " << model << "x, cuDNN " << measured << "x";
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 16);
  // Hopper: no measured fp8 attention rate, so the flag changes nothing.
  const RooflineCostModel h100(find_device_profile("h100-sxm"));
  AttentionShape a{1, 32, 8, 8192, 8192, 128, true, false, DType::fp8};
  const Time plain = h100.attention(a);
  a.fp8 = true;
  EXPECT_EQ(h100.attention(a), plain);
}

}  // namespace
}  // namespace cs
