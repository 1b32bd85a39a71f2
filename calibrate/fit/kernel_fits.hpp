// Least-squares fits (Eigen) of the kernel cost models in sim/hardware/measured_fits.hpp to samples.
//
// GEMM and attention: the model is t = launch + ideal / efficiency(sizes), with ln(efficiency) a polynomial
// in the log-sizes (EfficiencySurface). For fixed launch, tile and degree this is linear in the
// coefficients: ln(ideal / (t - launch)) = features . c, solved by column-pivoting QR, so relative errors are
// what is minimised. Launch cost, tile shape and degree are chosen from small candidate sets by the error on
// a validation fifth of the training samples, then the chosen form is refitted on all of them.
//
// Bandwidth-bound kernels and collectives: t = latency + bytes / bandwidth, by least squares weighted by
// 1/t (relative errors again); collectives piecewise over message-size ranges.
#pragma once

#include <string>
#include <vector>

#include "sim/hardware/measured_fits.hpp"

namespace cs::fit {

struct GemmSample {
  GemmShape shape;
  double seconds = 0;
};

struct AttentionSample {
  AttentionShape shape;
  double seconds = 0;
};

struct SizedSample {
  double bytes = 0;
  double seconds = 0;
};

[[nodiscard]] GemmFit fit_gemm(const std::vector<GemmSample>& samples, int sm_count, FlopRate peak);
[[nodiscard]] AttentionFit fit_attention(const std::vector<AttentionSample>& samples, FlopRate peak);
/// Throws std::invalid_argument with fewer than two samples.
[[nodiscard]] LinearCost fit_linear(const std::vector<SizedSample>& samples);
/// Segments split at `boundaries` (bytes, ascending); ranges with fewer than two samples merge into the
/// next.
[[nodiscard]] std::vector<CollectiveFit::Segment> fit_segments(std::vector<SizedSample> samples,
                                                               const std::vector<double>& boundaries);

}  // namespace cs::fit
