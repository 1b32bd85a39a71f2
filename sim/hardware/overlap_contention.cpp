#include "sim/hardware/overlap_contention.hpp"

#include <array>
#include <utility>

namespace cs {

double overlap_gemm_slowdown(int sms, int sm_count) noexcept {
  if (sms <= 0 || sm_count <= 0) return 0.0;
  // (SM share, GEMM slowdown) on the H200's 132 SMs: copy kernels of 8, 16, 32 and 66 CTAs (run 11).
  static constexpr std::array<std::pair<double, double>, 5> kPoints{{
      {0.0, 0.0}, {8.0 / 132, 0.098}, {16.0 / 132, 0.244}, {32.0 / 132, 0.376}, {66.0 / 132, 0.506}}};
  const double x = static_cast<double>(sms) / sm_count;
  for (std::size_t i = 1; i < kPoints.size(); ++i) {
    const auto [x0, y0] = kPoints[i - 1];
    const auto [x1, y1] = kPoints[i];
    if (x <= x1 || i + 1 == kPoints.size()) return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
  }
  return kPoints.back().second;
}

}  // namespace cs
