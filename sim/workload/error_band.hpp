// How far a step-time prediction may be off, derived from data rather than taste: the measured/predicted step
// time ratios of validation rows comparable to the prediction (same precision class, dense or MoE, similar
// scale), widened by the calibration residuals of the kernels it uses (the holdout error of a measured
// profile). The band is the central `level` interval of those ratios, applied to the prediction.
#pragma once

#include <string>
#include <vector>

#include "sim/hardware/dtype.hpp"

namespace cs {

/// One validation row's outcome, oriented as time: measured step time / predicted step time (for a throughput
/// row, predicted throughput / measured throughput).
struct Residual {
  std::string id;
  double time_ratio = 1;
  bool fp8 = false;
  bool moe = false;
  int gpus = 0;
  double calibration_p90 = 0;  ///< kernel-fit error of the profile the row was predicted with (see error_band)
  std::string source;          ///< the row's publication (with `id`, what tells a row from another file's)
};

/// What a prediction is: the traits that decide which residuals are comparable.
struct BandQuery {
  bool fp8 = false;
  bool moe = false;
  int gpus = 0;
};

/// A step time's plausible range, in the same unit as the prediction it was computed for.
struct ErrorBand {
  double low = 0, high = 0;  ///< bounds of the step time (seconds) at `level`
  double level = 0.9;        ///< central probability the band covers
  int samples = 0;           ///< comparable residuals it rests on (0: no band)
  std::string basis;         ///< which residuals and calibration spread, in words
  [[nodiscard]] bool valid() const noexcept { return samples > 0; }
};

/// The band of a predicted step time `step_s` for `q`. Comparable residuals: same precision class, dense/MoE
/// and within 8x in GPU count; with fewer than `min_samples`, the scale condition is dropped, then the
/// precision, then the dense/MoE one (the basis says which). Fewer than `min_samples` residuals in all give no
/// band (samples 0; the basis says how many there were): the extremes of one or two ratios are no 90% interval. `calibration_p90`: the 90th-percentile relative
/// holdout error of the profile's kernel fits (0 for datasheet profiles, whose errors are all in the
/// validation residuals); it widens both sides in quadrature, in log space.
[[nodiscard]] ErrorBand error_band(double step_s, const BandQuery& q, const std::vector<Residual>& residuals,
                                   double calibration_p90 = 0, double level = 0.9, int min_samples = 5);

}  // namespace cs
