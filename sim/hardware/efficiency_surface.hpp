// A fitted efficiency as a function of kernel sizes, in two parts:
//  - a smooth part: ln(efficiency) is a polynomial of total degree `degree` in the logarithms of the sizes
//    (for GEMMs ln m, ln n, ln k), plus, per penalty (for GEMMs the misalignment of the leading dimensions,
//    0 when 16-byte aligned), the penalty times an affine function of the same logarithms;
//  - a local part: a kernel smoother (Nadaraya-Watson, Gaussian kernel of width `smoother_width` in log
//    units, shrunk towards 0 by `smoother_prior`) over the residuals ln(measured / smooth prediction) of the
//    fitted samples, stored as rows (logs..., penalties..., residual). It captures what cuBLAS's choice of
//    kernel does between grid points; far from every sample it vanishes and the smooth part alone applies.
// Each logarithm is clamped to the range the fit saw, so the polynomial never extrapolates.
#pragma once

#include <span>
#include <vector>

namespace cs {

struct EfficiencySurface {
  int degree = 2;
  std::vector<double> log_min, log_max;  ///< per dimension, ln(size) range of the fit
  std::vector<double> coefficients;      ///< one per monomial, in the order of `features`
  std::vector<double> misaligned;        ///< per penalty a constant, then (affine form) one term per log
  double ceiling = 0;                    ///< > 0: the efficiency never exceeds this (the best the fit saw)
  double smoother_width = 0;             ///< 0: no local part; with neighbours > 0, a multiple of the distance
                                         ///< to the neighbours-th nearest residual row (adaptive width)
  int smoother_neighbours = 0;
  double smoother_prior = 1;
  std::vector<double> residuals;         ///< rows of dims + penalties + 1 numbers

  [[nodiscard]] std::size_t dims() const noexcept { return log_min.size(); }
  /// Number of monomials of total degree <= degree in `dims` variables.
  [[nodiscard]] static std::size_t monomial_count(std::size_t dims, int degree);
  /// The regression features of `logs` (already clamped): monomials, then for each penalty p the terms
  /// p, p * log_0, p * log_1, ...
  [[nodiscard]] static std::vector<double> features(std::span<const double> logs, int degree,
                                                    std::span<const double> penalties);
  /// As features, with one constant term per penalty instead of an affine one.
  [[nodiscard]] static std::vector<double> constant_penalty_features(std::span<const double> logs, int degree,
                                                                     std::span<const double> penalties);
  /// ln(size) clamped to the fitted range.
  [[nodiscard]] std::vector<double> clamp_logs(std::span<const double> sizes) const;
  /// ln(efficiency) of the smooth part at clamped `logs`.
  [[nodiscard]] double smooth_log(std::span<const double> logs, std::span<const double> penalties) const;
  /// The local correction at clamped `logs` (0 without residual rows).
  [[nodiscard]] double local_log(std::span<const double> logs, std::span<const double> penalties) const;
  /// The efficiency at `sizes` (not logs). Always positive.
  [[nodiscard]] double efficiency(std::span<const double> sizes, std::span<const double> penalties = {}) const;
};

}  // namespace cs
