// cuDNN's fused attention on Hopper (what Transformer Engine runs there; training.attention: cudnn) against cuDNN's
// own published timings on an H200. The h200 profile prices it as its FlashAttention-2 fit over the speed-up
// attention_cudnn derives from cuDNN 9.19's SDPA training benchmark (data/checks/cudnn_sdpa_h200.csv: Llama 3.1's
// 64 heads of 128 and DeepSeek-V3's 128 heads of 192/128, 2,048-32,768 tokens, forward and backward); cuDNN 9.27's
// prefill sweep (data/checks/cudnn_prefill_h200.csv, forward at 8-64 heads) checks the speed-up away from the heads
// it was taken at. Both benchmarks time short bursts, so shapes are priced at the fit's highest clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/hardware/compute_cost_model.hpp"
#include "sim/hardware/device_profile.hpp"
#include "cudnn_benchmark_rows.hpp"

namespace cs {
namespace {

using testing::median;
using testing::SdpaRow;

/// The causal, unwindowed 16-bit rows of data/checks/`file`.
std::vector<SdpaRow> published(const std::string& file) {
  std::vector<SdpaRow> rows = testing::cudnn_benchmark_rows(file);
  std::erase_if(rows, [](const SdpaRow& r) { return r.dtype != "bfloat16" || r.window != 0; });
  return rows;
}

double cudnn_ms(const ComputeCostModel& m, const SdpaRow& r) {
  AttentionShape a = testing::shape_of(r);
  a.kernel = FusedAttention::cudnn;
  return m.attention_load(a).at_max_clock.seconds() * 1e3;
}

// Every 16-bit causal row of the training benchmark: within 11% (the backward at 2,048 tokens, whose speed-up is
// the smallest, 1.61x against the median 1.80x), median 1.3%.
TEST(HopperAttention, CudnnKernelMatchesCudnnsTrainingBenchmark) {
  const auto model = make_cost_model(find_device_profile("h200"));
  const std::vector<SdpaRow> rows = published("cudnn_sdpa_h200.csv");
  ASSERT_EQ(rows.size(), 16u);  // Llama 3.1 at 5 lengths and DeepSeek-V3 at 3, forward and backward
  std::vector<double> errors;
  for (const SdpaRow& r : rows) {
    const double predicted = cudnn_ms(*model, r), error = predicted / r.ms - 1.0;
    std::printf("%-8s %s seq %6lld: cuDNN %8.3f ms, model %8.3f ms (%+.1f%%)\n", r.shape.c_str(), r.pass.c_str(),
                static_cast<long long>(r.seq), r.ms, predicted, 100.0 * error);
    EXPECT_LT(std::abs(error), 0.11) << r.shape << " " << r.pass << " " << r.seq;
    errors.push_back(std::abs(error));
  }
  EXPECT_LT(median(errors), 0.02);
}

// Forward at fewer heads (Llama 3.1 at TP 1, 2, 4, 8: 64 down to 8 heads) from cuDNN 9.27's prefill sweep, which
// the speed-up was not taken from. cuDNN runs small problems relatively better than FlashAttention-2, so the model
// is slow there: within 2% at 64 heads, up to 9% at 32, 15% at 16, and 13-39% at 8 heads (39% at 2,048 tokens, a
// 30 us kernel). These bounds hold what the model does; it is never faster than cuDNN.
TEST(HopperAttention, CudnnForwardAtFewerHeadsAgainstThePrefillSweep) {
  const auto model = make_cost_model(find_device_profile("h200"));
  const std::vector<SdpaRow> rows = published("cudnn_prefill_h200.csv");
  ASSERT_EQ(rows.size(), 16u);
  for (const SdpaRow& r : rows) {
    const double predicted = cudnn_ms(*model, r), error = predicted / r.ms - 1.0;
    std::printf("%2lld heads seq %6lld: cuDNN %7.4f ms, model %7.4f ms (%+.1f%%)\n", static_cast<long long>(r.heads),
                static_cast<long long>(r.seq), r.ms, predicted, 100.0 * error);
    EXPECT_GT(error, -0.02) << r.heads << " heads, " << r.seq;
    EXPECT_LT(error, r.heads >= 64 ? 0.03 : r.heads >= 16 ? 0.16 : 0.40) << r.heads << " heads, " << r.seq;
  }
}

// The H100 profile borrows the H200's fits and, with them, the speed-up over them (the same GH100 die); a
// datasheet profile without one prices cuDNN's kernel as FlashAttention-2's.
TEST(HopperAttention, TheSpeedupComesWithTheBorrowedFits) {
  const DeviceProfile h200 = find_device_profile("h200"), h100 = find_device_profile("h100-sxm");
  ASSERT_TRUE(h200.attention_cudnn.measured());
  EXPECT_EQ(h100.attention_cudnn.fwd_d128, h200.attention_cudnn.fwd_d128);
  EXPECT_EQ(h100.attention_cudnn.bwd_d160, h200.attention_cudnn.bwd_d160);
  const auto m = make_cost_model(h100);
  for (const bool backward : {false, true}) {
    AttentionShape a{2, 32, 4, 4096, 4096, 128, true, backward, DType::bf16};
    const double flash = m->attention_load(a).at_max_clock.seconds();
    a.kernel = FusedAttention::cudnn;
    EXPECT_NEAR(flash / m->attention_load(a).at_max_clock.seconds(), h200.attention_cudnn.at(backward, 128), 1e-5);  // times in whole ns
  }
  const auto datasheet = make_cost_model(find_device_profile("h100-sxm-datasheet"));
  AttentionShape a{2, 32, 4, 4096, 4096, 128, true, false, DType::bf16};
  const Time flash = datasheet->attention(a);
  a.kernel = FusedAttention::cudnn;
  EXPECT_EQ(datasheet->attention(a), flash);
}

}  // namespace
}  // namespace cs
