#include "sim/hardware/efficiency_surface.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace cs {

std::size_t EfficiencySurface::monomial_count(std::size_t dims, int degree) {
  // C(dims + degree, degree)
  std::size_t c = 1;
  for (int i = 1; i <= degree; ++i) c = c * (dims + static_cast<std::size_t>(i)) / static_cast<std::size_t>(i);
  return c;
}

std::vector<double> EfficiencySurface::features(std::span<const double> logs, int degree,
                                                std::span<const double> penalties) {
  std::vector<double> f;
  f.reserve(monomial_count(logs.size(), degree) + logs.size() + 1);
  // Monomials by total degree, each as a product of non-decreasing variable indices: for degree 2 in (a, b)
  // that is 1, a, b, a^2, ab, b^2.
  const std::function<void(int, std::size_t, double)> rec = [&](int left, std::size_t from, double prod) {
    if (left == 0) {
      f.push_back(prod);
      return;
    }
    for (std::size_t i = from; i < logs.size(); ++i) rec(left - 1, i, prod * logs[i]);
  };
  for (int d = 0; d <= degree; ++d) rec(d, 0, 1.0);
  for (const double p : penalties) {
    f.push_back(p);
    for (double l : logs) f.push_back(p * l);
  }
  return f;
}

std::vector<double> EfficiencySurface::constant_penalty_features(std::span<const double> logs, int degree,
                                                                 std::span<const double> penalties) {
  auto f = features(logs, degree, {});
  f.insert(f.end(), penalties.begin(), penalties.end());
  return f;
}

std::vector<double> EfficiencySurface::clamp_logs(std::span<const double> sizes) const {
  std::vector<double> l(sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    l[i] = std::clamp(std::log(std::max(sizes[i], 1.0)), log_min[i], log_max[i]);
  }
  return l;
}

double EfficiencySurface::smooth_log(std::span<const double> logs, std::span<const double> penalties) const {
  const auto f = features(logs, degree, {});
  double y = 0.0;
  for (std::size_t i = 0; i < coefficients.size(); ++i) y += coefficients[i] * f[i];
  // Penalty terms: either one constant per penalty, or per penalty a constant and one term per log.
  if (!misaligned.empty() && !penalties.empty()) {
    const std::size_t per = misaligned.size() / penalties.size();
    for (std::size_t p = 0; p < penalties.size(); ++p) {
      y += misaligned[p * per] * penalties[p];
      for (std::size_t j = 1; j < per; ++j) y += misaligned[p * per + j] * penalties[p] * logs[j - 1];
    }
  }
  return y;
}

double EfficiencySurface::local_log(std::span<const double> logs, std::span<const double> penalties) const {
  if (smoother_width <= 0 || residuals.empty()) return 0.0;
  const std::size_t row = dims() + penalties.size() + 1;
  const std::size_t rows = residuals.size() / row;
  std::vector<double> d2(rows, 0.0);
  for (std::size_t r = 0; r < rows; ++r) {
    const double* x = residuals.data() + r * row;
    for (std::size_t i = 0; i < dims(); ++i) d2[r] += (x[i] - logs[i]) * (x[i] - logs[i]);
    for (std::size_t i = 0; i < penalties.size(); ++i) d2[r] += (x[dims() + i] - penalties[i]) * (x[dims() + i] - penalties[i]);
  }
  double width = smoother_width;
  if (smoother_neighbours > 0) {  // adaptive: scale the distance to the k-th nearest row (at least 0.05)
    std::vector<double> sorted = d2;
    const auto k = std::min<std::size_t>(static_cast<std::size_t>(smoother_neighbours), rows) - 1;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(k), sorted.end());
    width = std::max(0.05, smoother_width * std::sqrt(sorted[k]));
  }
  const double inv = 1.0 / (2.0 * width * width);
  double wsum = 0, rsum = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const double w = std::exp(-d2[r] * inv);
    wsum += w;
    rsum += w * residuals[r * row + row - 1];
  }
  return rsum / (wsum + smoother_prior);
}

double EfficiencySurface::efficiency(std::span<const double> sizes, std::span<const double> penalties) const {
  const auto logs = clamp_logs(sizes);
  // The local part is a residual of ln(measured/predicted) = -ln(efficiency) correction, hence the minus.
  const double e = std::exp(smooth_log(logs, penalties) - local_log(logs, penalties));
  return ceiling > 0 ? std::min(e, ceiling) : e;
}

}  // namespace cs
