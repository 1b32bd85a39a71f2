// Predicting published training measurements: each row of a CSV in the column format of
// shared/validation/public_rows.csv becomes a scenario, is simulated, and is compared on the safest
// quantity the row measures (step time, else tokens/s per GPU, else TFLOP/s per GPU under the source's
// FLOP convention). No per-row or per-source correction is applied; the assumptions used to fill missing
// fields are general rules, listed with each row.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/input/csv_table.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs {

struct ValidationRow {
  std::string id;
  int line = 0;
  std::string source;
  std::string model;
  int gpus = 0;
  std::string quantity;               ///< "step_time_s", "tokens_per_s_per_gpu" or "tflops_per_gpu"
  double measured = 0;
  double predicted = 0;
  std::optional<std::string> skipped; ///< why the row was not predicted
  std::vector<std::string> assumptions;

  /// Signed relative error (predicted - measured) / measured.
  [[nodiscard]] double error() const noexcept { return (predicted - measured) / measured; }
};

/// The columns a validation file must have.
[[nodiscard]] const std::vector<std::string>& validation_columns();
/// Builds the scenario of one row (throws InputError located at the row for values that make no sense;
/// returns the reason in `skip` when the row lacks what a prediction needs).
[[nodiscard]] std::optional<Scenario> scenario_from_row(const CsvTable& t, const CsvTable::Row& row,
                                                        std::string& skip, std::vector<std::string>& assumptions);
/// Predicts one row of `t`: a prediction, or in `skipped` the reason there is none (nothing to compare, a
/// layout that cannot be planned, a value that makes no sense). Never throws for a problem of the row itself.
[[nodiscard]] ValidationRow predict_row(const CsvTable& t, const CsvTable::Row& row);
/// Predicts every row of `t`; a row that cannot be predicted is skipped with its reason, the rest still run.
/// Throws InputError only when the file itself lacks the columns.
[[nodiscard]] std::vector<ValidationRow> validate(const CsvTable& t);

}  // namespace cs
