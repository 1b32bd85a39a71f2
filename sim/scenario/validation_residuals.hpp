// The step-time residuals of the validation rows (measured / predicted step time), the data every run's error
// band rests on. `clustersim validate --residuals-out` writes them; the shipped file is
// data/validation_residuals.csv, read once per process and immutable afterwards (safe for sweep threads).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "sim/input/csv_table.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/validation.hpp"
#include "sim/workload/error_band.hpp"

namespace cs {

/// The shipped residual file, relative to the data directory.
inline constexpr const char* kResidualsFile = "data/validation_residuals.csv";
/// The central probability of the step-time band of runs and of `clustersim validate`.
inline constexpr double kStepBandLevel = 0.9;

/// Columns of a residual file: row_id, source, quantity, measured, predicted, time_ratio, fp8, moe, gpus,
/// calibration_p90.
[[nodiscard]] const std::vector<std::string>& residual_columns();
/// Writes the predicted rows of `rows` (skipped ones are left out) as a residual CSV, with `comment` lines
/// (written as "# ...") ahead of the header.
void write_residuals(std::ostream& out, const std::vector<ValidationRow>& rows, const std::vector<std::string>& comment);
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
/// The data directory's kResidualsFile, read on the first call (thread-safe); the same object afterwards.
[[nodiscard]] const ResidualSet& shipped_residuals();

/// The step-time band of a run of `sc` that predicted `step_s`: error_band() over `set` for the scenario's
/// precision (fp8 or not), dense/MoE and GPU count, widened by the profile's GEMM holdout p90 when the profile
/// is measured. The basis ends with the set's held-out coverage. Without residuals, an empty band (samples 0)
/// whose basis says why.
[[nodiscard]] ErrorBand step_band(const Scenario& sc, double step_s, const ResidualSet& set);

}  // namespace cs
