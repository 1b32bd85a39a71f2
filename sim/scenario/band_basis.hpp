// The basis of a run's step-time error band: the step-time residuals of validation rows (measured / predicted
// step time) in a CSV file that the scenario names (`error_band_basis`, by default the shipped
// data/validation_residuals.csv, which `clustersim validate --residuals-out` writes). The scenario loader reads
// it into the Scenario explicitly; nothing here is process-wide.
#pragma once

#include <string>
#include <vector>

#include "sim/input/csv_table.hpp"
#include "sim/hardware/device_profile.hpp"
#include "sim/workload/error_band.hpp"

namespace cs {

/// The shipped residual file, relative to the data directory: the default `error_band_basis` of a scenario.
inline constexpr const char* kShippedBandBasis = "data/validation_residuals.csv";
/// The central probability of the step-time band of runs and of `clustersim validate`.
inline constexpr double kStepBandLevel = 0.9;

/// The quantities a validation row is compared on, safest first, and the column of a validation file that
/// measures each (ValidationRow::quantity, and the quantity column of a residual file).
struct ComparedQuantity {
  const char* name;
  const char* column;
};
inline constexpr ComparedQuantity kComparedQuantities[] = {{"step_time_s", "meas_step_time_s"},
                                                           {"tokens_per_s_per_gpu", "meas_tokens_per_s_per_gpu"},
                                                           {"tflops_per_gpu", "meas_tflops_per_gpu"},
                                                           {"mfu_pct", "meas_mfu_pct"}};
/// Their names: "step_time_s", "tokens_per_s_per_gpu", "tflops_per_gpu", "mfu_pct".
[[nodiscard]] const std::vector<std::string>& validation_quantities();

/// Columns of a residual file: row_id, source, quantity, measured, predicted, time_ratio, fp8, moe, gpus,
/// calibration_p90.
[[nodiscard]] const std::vector<std::string>& residual_columns();
/// A CSV cell in quotes when it holds a comma, quote or line break (RFC 4180).
[[nodiscard]] std::string csv_cell(const std::string& s);
/// Reads residuals from `t`; throws InputError at the file, line and column of a missing column or a bad value.
[[nodiscard]] std::vector<Residual> parse_residuals(const CsvTable& t);
/// parse_residuals(CsvTable::load(path)).
[[nodiscard]] std::vector<Residual> read_residuals(const std::string& path);

/// How often bands hold what they bound: each residual's band from all the others at `level` (leave one out,
/// as `clustersim validate` does), and how many of those bands hold the residual's own ratio.
struct Coverage {
  int held = 0;
  int rows = 0;
};
[[nodiscard]] Coverage held_out_coverage(const std::vector<Residual>& residuals, double level);

/// What a residual file gave: its residuals, or why there are none.
struct ResidualSet {
  std::string path;
  std::vector<Residual> residuals;
  Coverage coverage;    ///< held_out_coverage at kStepBandLevel
  std::string problem;  ///< empty when the file was read; else why no band can be given (missing, malformed)
};
/// Reads `path` into a set; never throws (a missing or malformed file becomes `problem`, located).
[[nodiscard]] ResidualSet load_residual_set(const std::string& path);

/// The kernel-fit error that widens a band of a prediction made with `p`: the GEMM holdout p90 of a measured
/// profile, 0 for a datasheet one (whose errors are all in the validation residuals).
[[nodiscard]] double band_calibration_p90(const DeviceProfile& p) noexcept;

/// The step-time band of a prediction of `step_s` for a run like `q` (precision, dense/MoE, GPU count) with
/// profile `p`: error_band() over `set`, widened by the profile's GEMM holdout p90 when the profile is measured.
/// The basis ends with the set's held-out coverage. Without residuals, an empty band (samples 0) whose basis
/// says why.
[[nodiscard]] ErrorBand step_band(const BandQuery& q, const DeviceProfile& p, double step_s, const ResidualSet& set);

}  // namespace cs
