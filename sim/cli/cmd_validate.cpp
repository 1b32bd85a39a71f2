#include "sim/cli/cmd_validate.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "sim/core/atomic_file.hpp"
#include "sim/scenario/validation.hpp"

namespace cs::cli {

void register_validate_command(CLI::App& app) {
  struct Args {
    std::string rows;
    std::string json;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Predict published training measurements (CSV in the format of shared/validation/public_rows.csv)");
  cmd->add_option("rows", args->rows, "CSV file of measured configurations")->required();
  cmd->add_option("--json", args->json, "Write every row's prediction as JSON to FILE ('-' for standard output)")
      ->type_name("FILE|-");
  cmd->callback([args] {
    const CsvTable table = CsvTable::load(args->rows);
    const std::vector<ValidationRow> rows = validate(table);
    std::ostream& out = args->json == "-" ? std::cerr : std::cout;
    out << fmt::format("{:>5}  {:<28} {:>6}  {:<20} {:>12} {:>12} {:>8}  {:<19}\n", "row", "model", "GPUs", "quantity",
                       "predicted", "measured", "error", "90% band");
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
    out << fmt::format("90% bands (from the other rows of this file) hold the measurement for {} of {} rows\n", covered, n);
    out << fmt::format("MAPE: {:.1f}% over {} rows ({} skipped)\n", n ? 100 * sum / n : 0.0, n, skipped);
    if (!args->json.empty()) write_file_atomically(args->json, j.dump(2) + "\n");
  });
}

}  // namespace cs::cli
