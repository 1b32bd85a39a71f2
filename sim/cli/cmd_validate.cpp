#include "sim/cli/cmd_validate.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/core/atomic_file.hpp"
#include "sim/report/json_result.hpp"
#include "sim/scenario/validation.hpp"
#include "sim/scenario/validation_residuals.hpp"
#include "sim/search/fastest_plan.hpp"

namespace cs::cli {

void register_validate_command(CLI::App& app) {
  struct Args {
    std::vector<std::string> rows;
    std::string json;
    std::string residuals;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Predict published training measurements (CSV in the format of shared/validation/public_rows.csv)");
  cmd->add_option("rows", args->rows, "CSV files of measured configurations (their rows are validated together)")
      ->required();
  cmd->add_option("--json", args->json, "Write every row's prediction as JSON to FILE ('-' for standard output)")
      ->type_name("FILE|-");
  cmd->add_option("--residuals-out", args->residuals,
                  "Write the step-time residual (measured/predicted) of every predicted row as CSV to FILE, the data "
                  "of run's error bands (" + std::string(kResidualsFile) + ")")
      ->type_name("FILE");
  cmd->callback([args] {
    std::vector<CsvTable> tables;
    for (const std::string& f : args->rows) tables.push_back(CsvTable::load(f));
    // A row that states no layout runs the fastest one the plan search finds. Bands rest on the batch's other
    // rows and on the shipped residuals of rows outside the batch (a small check file alone gives no band).
    const ResidualSet& shipped = shipped_residuals();
    const std::vector<ValidationRow> rows = validate(
        tables, kStepBandLevel, [](Scenario& sc, const PlanFilter& keep) { return choose_fastest_plan(sc, keep); },
        shipped.residuals);
    const std::string band_title = fmt::format("{:.0f}% band", 100 * kStepBandLevel);
    std::ostream& out = args->json == "-" ? std::cerr : std::cout;
    out << fmt::format("{:>5}  {:<28} {:>6}  {:<20} {:>12} {:>12} {:>8}  {:<19}\n", "row", "model", "GPUs", "quantity",
                       "predicted", "measured", "error", band_title);
    double sum = 0;
    int n = 0, skipped = 0, covered = 0;
    std::map<std::string, std::pair<double, int>> per_source;
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
      nlohmann::ordered_json e{{"row_id", r.id}, {"line", r.line}, {"source", r.source}, {"model", r.model},
                               {"gpus", r.gpus}};
      if (r.skipped) {
        ++skipped;
        out << fmt::format("{:>5}  {:<28} {:>6}  skipped: {}\n", r.id, r.model.substr(0, 28), r.gpus, *r.skipped);
        e["skipped"] = *r.skipped;
      } else {
        const double err = r.error();
        sum += std::fabs(err);
        ++n;
        auto& ps = per_source[r.source.substr(0, r.source.find(' '))];
        ps.first += std::fabs(err);
        ps.second += 1;
        std::string notes;
        for (const auto& a : r.assumptions) notes += (notes.empty() ? "  [" : "; ") + a;
        if (!notes.empty()) notes += "]";
        const std::string band =
            r.band.valid() ? fmt::format("{:.4g}-{:.4g}", r.band.low, r.band.high) : std::string("-");
        if (r.band.valid() && r.measured >= r.band.low && r.measured <= r.band.high) ++covered;
        out << fmt::format("{:>5}  {:<28} {:>6}  {:<20} {:>12.4g} {:>12.4g} {:>+7.1f}%  {:<19}{}\n", r.id,
                           r.model.substr(0, 28), r.gpus, r.quantity, r.predicted, r.measured, 100 * err, band, notes);
        e["quantity"] = r.quantity;
        e["predicted"] = r.predicted;
        e["measured"] = r.measured;
        e["error"] = err;
        e["assumptions"] = r.assumptions;
        e["predicted_step_s"] = r.predicted_step_s();
        e["breakdown"] = breakdown_json(r.step, r.sm_clock_mhz);  // the object `run --json` writes
        e["peak_memory_bytes"] = r.memory.total().value();
        e["memory_capacity_bytes"] = r.memory_capacity.value();
        e["memory"] = memory_json(r.memory);
        if (r.band.valid()) {
          e["band"] = {{"low", r.band.low}, {"high", r.band.high}, {"level", r.band.level}, {"basis", r.band.basis}};
        }
      }
      j.push_back(std::move(e));
    }
    out << "\nMAPE by source (first word):\n";
    for (const auto& [src, v] : per_source) {
      out << fmt::format("  {:<24} {:5.1f}% over {} rows\n", src, 100 * v.first / v.second, v.second);
    }
    out << fmt::format("{}s (from the other rows{}) hold the measurement for {} of {} rows\n", band_title,
                       shipped.problem.empty() ? " and the shipped residuals of rows not in these files" : "", covered, n);
    if (!shipped.problem.empty()) out << "bands rest on these files' rows alone: " << shipped.problem << "\n";
    out << fmt::format("MAPE: {:.1f}% over {} rows ({} skipped)\n", n ? 100 * sum / n : 0.0, n, skipped);
    if (!args->json.empty()) write_file_atomically(args->json, j.dump(2) + "\n");
    if (!args->residuals.empty()) {
      std::string files;
      for (const std::string& f : args->rows) files += " " + f;
      std::ostringstream csv;
      write_residuals(csv, rows,
                      {"Step-time residuals of the validation rows: time_ratio = measured / predicted step time (for a",
                       "throughput row, predicted / measured throughput); rows that could not be predicted are left out.",
                       "Generated by: clustersim validate" + files + " --residuals-out " + args->residuals,
                       "Every run's step-time band rests on these rows (docs/validation.md, \"Error bands\")."});
      write_file_atomically(args->residuals, csv.str());
    }
  });
}

}  // namespace cs::cli
