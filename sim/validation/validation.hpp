// Predicting published training measurements: each row of a CSV in the column format of
// shared/validation/public_rows.csv becomes a scenario, is simulated, and is compared on the safest
// quantity the row measures (step time, else tokens/s per GPU, else TFLOP/s per GPU under the source's
// FLOP convention, else MFU against the datasheet peak). No per-row or per-source correction is applied; the
// assumptions used to fill missing fields are general rules, listed with each row.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/input/csv_table.hpp"
#include "sim/replay/step_replay.hpp"
#include "sim/scenario/band_basis.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/error_band.hpp"
#include "sim/workload/memory_model.hpp"

namespace cs {

struct ValidationRow {
  std::string id;
  int line = 0;
  std::string source;
  std::string model;
  int gpus = 0;
  std::string quantity;               ///< "step_time_s", "tokens_per_s_per_gpu", "tflops_per_gpu" or "mfu_pct"
  double measured = 0;
  double predicted = 0;
  std::optional<std::string> skipped; ///< why the row was not predicted
  std::vector<std::string> assumptions;
  bool fp8 = false;                   ///< traits that decide which rows are comparable for error bands
  bool moe = false;
  StepResult step;                    ///< the simulated step behind `predicted`, and where its time went
  std::optional<double> sm_clock_mhz; ///< the critical stage's SM clock (none without a power-cap model)
  MemoryBreakdown memory;             ///< the most loaded GPU's footprint
  Bytes memory_capacity;              ///< per GPU
  double calibration_p90 = 0;         ///< band_calibration_p90 of the row's profile
  /// Step-time band from the other rows of the same batch (leave one out), expressed in `quantity`'s unit.
  ErrorBand band;

  /// The simulated step time behind `predicted`.
  [[nodiscard]] double predicted_step_s() const noexcept { return step.step_time.seconds(); }
  /// Signed relative error (predicted - measured) / measured.
  [[nodiscard]] double error() const noexcept { return (predicted - measured) / measured; }
  /// Measured / predicted step time (for a throughput-like quantity, predicted / measured).
  [[nodiscard]] double time_ratio() const noexcept {
    return quantity.ends_with("_s") ? measured / predicted : predicted / measured;
  }
};

/// Which plans a LayoutChooser may pick (a plan and its overlap settings): those agreeing with what the row states.
using PlanFilter = std::function<bool(const ParallelPlan&, const Overlap&)>;
/// Chooses what a row leaves to its publisher's tuning: among the plans `keep` accepts, writes the fastest
/// plan, and the micro-batch, recompute and overlap settings it decides, into the scenario (whose model,
/// batch, precision, topology and profile are set), and returns a description of it; nullopt when no plan
/// fits. The plan search provides one (choose_fastest_plan, sim/search/fastest_plan.hpp).
using LayoutChooser = std::function<std::optional<std::string>(Scenario&, const PlanFilter& keep)>;

/// The device profile and topology of a row's `hardware` cell ("H100-SXM 80GB" -> h100-sxm, dgx-h100); false, with
/// the reason in `skip`, for hardware no profile models.
[[nodiscard]] bool hardware_profile(const std::string& hw, std::string& profile, std::string& topology,
                                    std::string& skip);
/// A serving row (row_kind serve_prefill, serve_decode or serve_generate; ../shared/validation/README.md) priced
/// by the serving layer's iteration cost on the row's hardware, model and deployment, slowed by the co-location
/// model when the row shares its GPUs (colocated_with, isolation). Fills `v` (quantity, measured, predicted) or
/// its `skipped`. serving_rows.cpp.
void predict_serving_row(const CsvTable& t, const CsvTable::Row& row, ValidationRow& v);
/// True for the serving row kinds.
[[nodiscard]] bool is_serving_row(const CsvTable& t, const CsvTable::Row& row);

/// The columns a validation file must have.
[[nodiscard]] const std::vector<std::string>& validation_columns();
/// Builds the scenario of one row (throws InputError located at the row for values that make no sense;
/// returns the reason in `skip` when the row lacks what a prediction needs, such as a layout when there is
/// no `choose`).
[[nodiscard]] std::optional<Scenario> scenario_from_row(const CsvTable& t, const CsvTable::Row& row,
                                                        std::string& skip, std::vector<std::string>& assumptions,
                                                        const LayoutChooser& choose = {});
/// Predicts one row of `t`: a prediction, or in `skipped` the reason there is none (nothing to compare, a
/// layout that cannot be planned, a value that makes no sense). Never throws for a problem of the row itself.
[[nodiscard]] ValidationRow predict_row(const CsvTable& t, const CsvTable::Row& row, const LayoutChooser& choose = {});
/// The predicted rows of `rows` as step-time residuals (measured/predicted time), for error_band().
[[nodiscard]] std::vector<Residual> residuals_of(const std::vector<ValidationRow>& rows);
/// Predicts every row of `t`; a row that cannot be predicted is skipped with its reason, the rest still run.
/// Each predicted row gets the error band (central `level`) that the other predicted rows give it (leave one
/// out), together with `prior`: residuals of earlier validations (the shipped file), less those of rows in
/// this batch (same id and source). Throws InputError only when the file itself lacks the columns.
[[nodiscard]] std::vector<ValidationRow> validate(const CsvTable& t, double level = 0.9, const LayoutChooser& choose = {},
                                                  const std::vector<Residual>& prior = {});
/// The same over the rows of several files together: each row's band comes from all the others.
[[nodiscard]] std::vector<ValidationRow> validate(const std::vector<CsvTable>& tables, double level = 0.9,
                                                  const LayoutChooser& choose = {}, const std::vector<Residual>& prior = {});

}  // namespace cs
