// clustersim-fit as a user runs it: the cuDNN attention speed-up of the shipped H200 profile, derived from the
// published benchmark with one command, and a malformed benchmark file refused with its place and exit status 2.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "run_cli.hpp"

#ifdef CLUSTERSIM_FIT_BIN
namespace cs::e2e {
namespace {

Outcome run_fit(const std::string& args) { return run_program(CLUSTERSIM_FIT_BIN, args); }

TEST(FitCli, CudnnSpeedupPrintsTheLineTheH200ProfileCarries) {
  const Outcome o = run_fit("cudnn-speedup --profile h200 --published data/checks/cudnn_sdpa_h200.csv");
  ASSERT_EQ(o.status, 0) << o.output;
  const std::string line = "attention_cudnn: {fwd_d128: 1.92, bwd_d128: 1.8, fwd_d160: 1.82, bwd_d160: 1.37}";
  EXPECT_NE(o.output.find(line), std::string::npos) << o.output;
  std::ifstream profile(std::string(CS_SOURCE_DIR) + "/profiles/h200.yaml");
  const std::string text((std::istreambuf_iterator<char>(profile)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find(line), std::string::npos) << "profiles/h200.yaml no longer holds what the command derives";
  EXPECT_NE(o.output.find("| llama3.1 | bwd | 1 x 64 (8) | 2048 |"), std::string::npos) << o.output;
}

TEST(FitCli, AMalformedBenchmarkFileIsRefusedWithItsPlace) {
  const std::string path = ::testing::TempDir() + "/cudnn_bad_cli.csv";
  {
    std::ofstream out(path);
    out << "gpu,shape,data_type,pass,batch,seq,heads,kv_heads,head_dim_qk,head_dim_vo,window,time_ms\n"
        << "h200,llama3.1,bfloat16,fwd,1,4096,64,8,128,128,0,0.465\n"
        << "h200,llama3.1,bfloat16,bwd,1,4096,64,8,128,128,0,-1\n";
  }
  const Outcome o = run_fit("cudnn-speedup --profile h200 --published " + path);
  EXPECT_EQ(o.status, 2) << o.output;
  EXPECT_NE(o.output.find(path + ":3"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("time_ms"), std::string::npos) << o.output;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace cs::e2e
#endif
