// The h200 profile's attention_cudnn line is what `clustersim-fit cudnn-speedup` derives from the published cuDNN
// benchmark (data/checks/cudnn_sdpa_h200.csv) against the profile's FlashAttention-2 fits; a malformed benchmark file
// is refused with its file, line and column.
#include "calibrate/fit/cudnn_speedup.hpp"
#include "calibrate/fit/error_stats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/store/calibration_sample.hpp"
#include "temp_path.hpp"

namespace cs::fit {
namespace {

TEST(CudnnSpeedup, TheH200ProfileHoldsWhatThePublishedBenchmarkGives) {
  const DeviceProfile h200 = find_device_profile("h200");
  const auto r = cudnn_speedup(h200, read_cudnn_timings(std::string(CS_SOURCE_DIR) + "/data/checks/cudnn_sdpa_h200.csv"));
  EXPECT_EQ(r.rows.size(), 16u);
  // The profile's line carries three significant digits.
  EXPECT_NEAR(r.speedup.fwd_d128, h200.attention_cudnn.fwd_d128, 0.005);
  EXPECT_NEAR(r.speedup.bwd_d128, h200.attention_cudnn.bwd_d128, 0.005);
  EXPECT_NEAR(r.speedup.fwd_d160, h200.attention_cudnn.fwd_d160, 0.005);
  EXPECT_NEAR(r.speedup.bwd_d160, h200.attention_cudnn.bwd_d160, 0.005);
  // cuDNN is faster in every published shape; the backward gains less at DeepSeek-V3's wider heads.
  for (const auto& row : r.rows) EXPECT_GT(row.flash_ms, row.timing.ms) << row.timing.shape << " " << row.timing.seq;
  EXPECT_LT(r.speedup.bwd_d160, r.speedup.bwd_d128);
}

TEST(CudnnSpeedup, MalformedRowsAreRefusedWithTheirPlace) {
  const auto path = cs::testing::temp_file("cudnn_bad", ".csv").string();
  {
    std::ofstream out(path);
    out << "# a comment\ngpu,shape,data_type,pass,batch,seq,heads,kv_heads,head_dim_qk,head_dim_vo,window,time_ms\n"
        << "h200,llama3.1,bfloat16,fwd,1,4096,64,8,128,128,0,0.465\n"
        << "h200,llama3.1,bfloat16,sideways,1,4096,64,8,128,128,0,1.450\n";
  }
  try {
    (void)read_cudnn_timings(path);
    FAIL() << "a pass other than fwd or bwd was read";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path + ":4"), std::string::npos) << what;
    EXPECT_NE(what.find("pass"), std::string::npos) << what;
  }
  {
    std::ofstream out(path);
    out << "gpu,shape,data_type,pass,batch,seq,heads,kv_heads,head_dim_qk,head_dim_vo,window,time_ms\n"
        << "h200,llama3.1,bfloat16,fwd,1,4096,64,8,128,128,0,fast\n";
  }
  EXPECT_THROW((void)read_cudnn_timings(path), InputError);
  {
    std::ofstream out(path);
    out << "gpu,shape,pass,time_ms\nh200,llama3.1,fwd,0.4\n";
  }
  EXPECT_THROW((void)read_cudnn_timings(path), InputError);  // columns missing
  // No timing of a direction and width: nothing to derive from.
  {
    std::ofstream out(path);
    out << "gpu,shape,data_type,pass,batch,seq,heads,kv_heads,head_dim_qk,head_dim_vo,window,time_ms\n"
        << "h200,llama3.1,bfloat16,fwd,1,4096,64,8,128,128,0,0.465\n";
  }
  EXPECT_THROW((void)cudnn_speedup(find_device_profile("h200"), read_cudnn_timings(path)), std::invalid_argument);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace cs::fit

namespace cs::fit {
namespace {

// Our own pairs (H100 run 13, profiles/h100-calibration/run13-cudnn-attention: attention_bench.py --backend cudnn and
// --backend flash on one H100 with PyTorch 2.11's cuDNN 9.19, the fits' whole grid of 113 shapes, bf16, burst clocks):
// FlashAttention-2's time over cuDNN's, shape by shape. At 128-wide heads the medians are 1.89x forward and 1.68x
// backward, against the profile's 1.92x and 1.80x from cuDNN's published H200 benchmark: the backward speed-up the
// profile holds is 7% above ours. At 64-wide heads cuDNN gains less (1.58x and 1.53x); the profile holds no
// 64-wide figure and prices such heads at its 128-wide speed-up, so its cuDNN kernel is fast there.
TEST(CudnnSpeedup, TheProfileAgreesWithOurOwnPairedH100Samples) {
  const std::string dir = std::string(CS_SOURCE_DIR) + "/profiles/h100-calibration/run13-cudnn-attention/";
  const SamplesFile cudnn = read_samples_file(dir + "samples-attention-cudnn.csv");
  const SamplesFile flash = read_samples_file(dir + "samples-attention-flash.csv");
  ASSERT_EQ(cudnn.samples.size(), 226u);
  ASSERT_EQ(flash.samples.size(), 226u);
  std::map<std::pair<std::string, std::int64_t>, std::vector<double>> ratios;  // (op, head_dim) -> flash / cudnn
  for (std::size_t i = 0; i < cudnn.samples.size(); ++i) {
    const CalibrationSample& c = cudnn.samples[i];
    const CalibrationSample& f = flash.samples[i];
    ASSERT_EQ(c.algo, "cudnn");
    ASSERT_EQ(f.algo, "flash");
    ASSERT_TRUE(c.op == f.op && c.batch == f.batch && c.heads == f.heads && c.seq == f.seq && c.head_dim == f.head_dim);
    ratios[{c.op, c.head_dim}].push_back(f.median.value() / c.median.value());
  }
  const auto median = [](const std::vector<double>& v) { return quantile(v, 0.5); };
  const AttentionCudnnSpeedup& profile = find_device_profile("h200").attention_cudnn;
  const double fwd128 = median(ratios[{"fwd", 128}]), bwd128 = median(ratios[{"bwd", 128}]);
  const double fwd64 = median(ratios[{"fwd", 64}]), bwd64 = median(ratios[{"bwd", 64}]);
  std::printf("ours: 128-wide %.2fx / %.2fx, 64-wide %.2fx / %.2fx; profile 128-wide %.2fx / %.2fx\n", fwd128, bwd128,
              fwd64, bwd64, profile.fwd_d128, profile.bwd_d128);
  EXPECT_NEAR(profile.fwd_d128 / fwd128, 1.0, 0.03);
  EXPECT_NEAR(profile.bwd_d128 / bwd128, 1.0, 0.08);
  EXPECT_GT(profile.bwd_d128, bwd128);  // the published backward gains more than ours
  EXPECT_LT(fwd64, fwd128);
  EXPECT_LT(bwd64, bwd128);
}

}  // namespace
}  // namespace cs::fit
