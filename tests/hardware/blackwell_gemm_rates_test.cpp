// The Blackwell profiles' low-precision GEMM rates against Transformer Engine's published GEMM profiling guide on a
// B300 (data/checks/te_gemm_profiling_b300.csv): one 4,096-hidden layer's twelve GEMMs at 15,872 tokens, timed
// with their inputs quantized beforehand (the kernels alone: the simulator prices the casts as kernels of their
// own). The profiles' efficiencies are their bf16 efficiency times the guide's kernel ratios (per-tensor fp8
// 0.966, MXFP8 0.918, NVFP4 0.608 of bf16's fraction of peak, at the published peaks and the highest clock), so
// the model must reproduce those ratios; its bf16 level comes from a GB300 cuBLAS measurement and runs 6% faster
// than the B300 of the guide.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "sim/hardware/device_profile.hpp"
#include "sim/hardware/roofline_cost_model.hpp"
#include "sim/input/csv_table.hpp"

namespace cs {
namespace {

/// The guide's pre-quantized per-layer time (fprop + dgrad + wgrad), ms, by format.
std::map<std::string, double> guide_layer_ms() {
  const CsvTable t = CsvTable::load(std::string(CS_SOURCE_DIR) + "/data/checks/te_gemm_profiling_b300.csv");
  std::map<std::string, double> ms;
  for (const CsvTable::Row& row : t.rows()) {
    if (t.cell(row, "mode") == "prequantized") ms[t.cell(row, "format")] += std::stod(t.cell(row, "time_ms"));
  }
  return ms;
}

/// The model's time for the same twelve GEMMs, ms.
double model_layer_ms(const DeviceProfile& p, DType d) {
  const RooflineCostModel m(p);
  const std::int64_t tokens = 31 * 512;
  // (in, out) features of QKV, attention out, MLP up and MLP down.
  const std::pair<std::int64_t, std::int64_t> linears[] = {{4096, 12288}, {4096, 4096}, {4096, 16384}, {16384, 4096}};
  double s = 0;
  for (const auto& [in, out] : linears) {
    s += m.gemm(GemmShape{tokens, out, in, d, 1}).seconds();   // forward
    s += m.gemm(GemmShape{tokens, in, out, d, 1}).seconds();   // gradient of the input
    s += m.gemm(GemmShape{in, out, tokens, d, 1}).seconds();   // gradient of the weight
  }
  return 1e3 * s;
}

TEST(BlackwellGemmRates, B300ReproducesTheGuidesKernelRatios) {
  const auto guide = guide_layer_ms();
  ASSERT_EQ(guide.size(), 4U);
  EXPECT_NEAR(guide.at("bf16"), 13.102, 1e-9);  // the guide's printed per-layer totals
  EXPECT_NEAR(guide.at("fp8"), 6.812, 1e-9);
  const DeviceProfile b300 = find_device_profile("b300");
  const double bf16 = model_layer_ms(b300, DType::bf16);
  // bf16 from the GB300's cuBLAS rate: 6% faster than the B300 of the guide.
  EXPECT_NEAR(bf16 / guide.at("bf16"), 0.94, 0.03) << bf16 << " ms";
  const std::map<std::string, DType> formats{{"fp8", DType::fp8}, {"mxfp8", DType::mxfp8}, {"fp4", DType::fp4}};
  for (const auto& [name, d] : formats) {
    const double ratio = model_layer_ms(b300, d) / bf16, published = guide.at(name) / guide.at("bf16");
    EXPECT_NEAR(ratio / published, 1.0, 0.03) << name << ": model " << ratio << " of bf16, guide " << published;
  }
  // MXFP8's kernels are 5% slower than per-tensor fp8's; NVFP4's 1.9x faster than MXFP8's.
  EXPECT_GT(model_layer_ms(b300, DType::mxfp8), 1.03 * model_layer_ms(b300, DType::fp8));
}

// The four Blackwell profiles share the tensor-core ratios (B200 and B300 have the same fp8 and bf16 peaks; the
// GB parts are the same dies at a higher power limit). NVFP4 differs: the B200's fp4 rate is its own measurement.
TEST(BlackwellGemmRates, EveryBlackwellProfileTakesTheRatios) {
  for (const char* name : {"b200", "gb200", "b300", "gb300"}) {
    const GemmModelParams& g = find_device_profile(name).gemm;
    EXPECT_NEAR(g.efficiency_for(DType::fp8) / g.efficiency_for(DType::bf16), 0.966, 0.01) << name;
    EXPECT_NEAR(g.efficiency_for(DType::mxfp8) / g.efficiency_for(DType::bf16), 0.918, 0.01) << name;
    EXPECT_EQ(find_device_profile(name).gpu.peak_for(DType::mxfp8), find_device_profile(name).gpu.peak_for(DType::fp8))
        << name;
  }
  // Hopper has no MXFP8 tensor cores: its profiles list no mxfp8 peak (a scenario asking for it is an error).
  EXPECT_EQ(find_device_profile("h100-sxm").gpu.peak.count(DType::mxfp8), 0U);
}

}  // namespace
}  // namespace cs
