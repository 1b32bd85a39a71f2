#include "sim/workload/error_band.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cs {
namespace {

/// Linear-interpolated quantile of sorted `v` at p in [0, 1].
double quantile(const std::vector<double>& v, double p) {
  if (v.size() == 1) return v.front();
  const double x = p * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(x));
  const double f = x - static_cast<double>(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v.back();
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
