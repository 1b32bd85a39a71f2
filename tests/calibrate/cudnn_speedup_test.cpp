// The h200 profile's attention_cudnn line is what `clustersim-fit cudnn-speedup` derives from the published cuDNN
// benchmark (data/checks/cudnn_sdpa_h200.csv) against the profile's FlashAttention-2 fits; a malformed benchmark file
// is refused with its file, line and column.
#include "calibrate/fit/cudnn_speedup.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "sim/core/error.hpp"
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
