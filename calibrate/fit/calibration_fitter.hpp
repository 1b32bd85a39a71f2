// From samples to a measured profile: splits off a random quarter of the GEMM and attention samples as a
// holdout, fits every model on the rest (kernel_fits.hpp), predicts the holdout through the same cost model
// the simulator uses (make_cost_model), and reports residuals (training samples) and holdout errors per
// model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/fit/error_stats.hpp"
#include "sim/hardware/device_profile.hpp"
#include "sim/store/calibration_sample.hpp"

namespace cs::fit {

struct FitOptions {
  std::string profile_name;        ///< name of the measured profile, e.g. "h200"
  std::string samples_reference;   ///< where the raw samples are kept (written into the profile)
  double holdout_fraction = 0.25;
  std::uint64_t seed = 20261202;   ///< of the holdout shuffle: the same seed gives the same split
};

struct ModelReport {
  std::string model;  ///< e.g. "gemm bf16", "attention bwd fp16", "memory copy", "all_reduce x1 auto"
  ErrorStats train;   ///< residuals on the samples the fit used
  ErrorStats holdout; ///< count 0 where nothing was held out
  std::string parameters;  ///< the fitted parameters in words
};

struct HeldOutPrediction {
  CalibrationSample sample;
  double predicted_s = 0;
  double predicted_mhz = 0;  ///< the SM clock the prediction assumed (0: no power-cap model)
};

struct FitResult {
  DeviceProfile profile;
  std::string power_cap_report;  ///< empty for burst calibrations
  std::vector<ModelReport> models;
  ErrorStats gemm_holdout, attention_holdout;
  std::vector<HeldOutPrediction> holdout;
};

/// `base` supplies the GPU's datasheet figures (peaks, memory, TDP) and the roofline fallback parameters.
/// Throws std::invalid_argument when a model has too few samples to fit.
[[nodiscard]] FitResult fit_calibration(const DeviceProfile& base, const SamplesFile& samples, const FitOptions& options);

/// Errors of `predictions` as a Markdown table: all, then GEMMs by alignment class (16-byte-aligned leading
/// dimensions or not), by kernel duration (< or >= 20 us) and by format. `title` heads the first column.
[[nodiscard]] std::string format_prediction_subsets(const std::vector<HeldOutPrediction>& predictions,
                                                    const std::string& title);

/// The SM clock a sample is priced at (profiles with a power-cap model; without one every mode is f_max).
enum class SampleClock {
  busy,      ///< the kernel on a GPU kept busy by training-size GEMMs: its own clock or the busy one, the
             ///< lower (what `clustersim cost` prices; the check set timed right after filler GEMMs)
  own,       ///< the kernel alone, back to back until the regulator settles: the clock its own power allows
             ///< (gemm_check.py --settle-ms 250)
  recorded,  ///< the SM clock the sample recorded: the fitted surfaces alone, without the clock model
};

/// Predictions of `profile` for every GEMM and attention sample of `samples` (formats the profile has no
/// fit for included: they go through the profile's fallback model) at the clock `clock` says.
[[nodiscard]] std::vector<HeldOutPrediction> predict_samples(const DeviceProfile& profile, const SamplesFile& samples,
                                                             SampleClock clock = SampleClock::busy);

/// The report as Markdown tables.
[[nodiscard]] std::string format_report(const FitResult& r);

}  // namespace cs::fit
