#include "sim/workload/error_band.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cs {
namespace {

/// Quantile of sorted `v` at p in [0, 1] at the plotting position p (n + 1) (Hyndman and Fan's type 6, Weibull's):
/// the k-th smallest of n values sits at p = k / (n + 1), which is the chance that one more draw from the same
/// distribution falls below it. So the interval between the quantiles at `tail` and 1 - `tail` holds a new row
/// with probability 1 - 2 tail, where the interpolation of p (n - 1) (type 7) holds it less often with few rows
/// (about 74% instead of 90% with 10). Positions outside the sample clamp to its extremes.
double quantile(const std::vector<double>& v, double p) {
  const double n = static_cast<double>(v.size());
  const double h = std::clamp(p * (n + 1), 1.0, n);  // 1-based
  const auto i = static_cast<std::size_t>(std::floor(h));
  const double f = h - static_cast<double>(i);
  return i < v.size() ? v[i - 1] * (1 - f) + v[i] * f : v.back();
}

}  // namespace

ErrorBand error_band(double step_s, const BandQuery& q, const std::vector<Residual>& residuals, double calibration_p90,
                     double level, int min_samples) {
  ErrorBand band;
  band.level = level;
  auto near_scale = [&](const Residual& r) {
    const double ratio = static_cast<double>(std::max(1, r.gpus)) / std::max(1, q.gpus);
    return ratio <= 8.0 && ratio >= 1.0 / 8.0;
  };
  // Progressively looser notions of "comparable", the strictest first.
  struct Rule {
    bool scale, precision, kind;
  };
  const Rule rules[] = {{true, true, true}, {false, true, true}, {false, false, true}, {false, false, false}};
  std::vector<double> logs;
  const Rule* used = nullptr;
  for (const Rule& rule : rules) {
    logs.clear();
    for (const Residual& r : residuals) {
      if (rule.kind && r.moe != q.moe) continue;
      if (rule.precision && r.fp8 != q.fp8) continue;
      if (rule.scale && !near_scale(r)) continue;
      if (r.time_ratio > 0) logs.push_back(std::log(r.time_ratio));
    }
    used = &rule;
    if (static_cast<int>(logs.size()) >= min_samples) break;
  }
  if (logs.empty()) {
    band.basis = "no comparable validation rows";
    return band;
  }
  if (static_cast<int>(logs.size()) < min_samples) {
    band.basis = "only " + std::to_string(logs.size()) + " validation rows (a band needs " + std::to_string(min_samples) + ")";
    return band;
  }
  std::sort(logs.begin(), logs.end());
  const double tail = (1 - level) / 2;
  const double lo = quantile(logs, tail), mid = quantile(logs, 0.5), hi = quantile(logs, 1 - tail);
  const double cal = std::log1p(calibration_p90);
  const double down = std::sqrt((mid - lo) * (mid - lo) + cal * cal);
  const double up = std::sqrt((hi - mid) * (hi - mid) + cal * cal);
  band.low = step_s * std::exp(mid - down);
  band.high = step_s * std::exp(mid + up);
  band.samples = static_cast<int>(logs.size());
  std::string what = q.moe ? "MoE" : "dense";
  if (used->precision) what += q.fp8 ? ", fp8" : ", 16-bit";
  if (used->scale) what += ", " + std::to_string(std::max(1, q.gpus / 8)) + "-" + std::to_string(q.gpus * 8) + " GPUs";
  band.basis = std::to_string(band.samples) + " validation rows (" + what + ")";
  if (calibration_p90 > 0) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", 100 * calibration_p90);
    band.basis += std::string(" and kernel fits' p90 holdout error ") + pct;
  }
  return band;
}

}  // namespace cs
