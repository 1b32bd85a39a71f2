#include "calibrate/fit/error_stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cs::fit {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

ErrorStats error_stats(const std::vector<double>& predicted, const std::vector<double>& measured) {
  if (predicted.size() != measured.size()) throw std::invalid_argument("error_stats: size mismatch");
  std::vector<double> abs_err, signed_err;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    const double e = (predicted[i] - measured[i]) / measured[i];
    signed_err.push_back(e);
    abs_err.push_back(std::abs(e));
  }
  ErrorStats s;
  s.count = static_cast<int>(predicted.size());
  if (s.count == 0) return s;
  s.median = quantile(abs_err, 0.5);
  s.p90 = quantile(abs_err, 0.9);
  s.max = *std::max_element(abs_err.begin(), abs_err.end());
  s.bias = quantile(signed_err, 0.5);
  return s;
}

}  // namespace cs::fit
