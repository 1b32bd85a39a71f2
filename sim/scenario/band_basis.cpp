#include "sim/scenario/band_basis.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>


namespace cs {
namespace {

/// The column (1-based) of `name` in `t`, for error locations.
int column_of(const CsvTable& t, const std::string& name) { return static_cast<int>(*t.column(name)) + 1; }

double positive(const CsvTable& t, const CsvTable::Row& row, const std::string& name) {
  const std::string& s = t.cell(row, name);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(v) || v <= 0) {
    throw InputError({t.file(), row.line, column_of(t, name)}, name,
                     "expected a positive number, got \"" + s + "\"");
  }
  return v;
}

bool flag(const CsvTable& t, const CsvTable::Row& row, const std::string& name) {
  const std::string& s = t.cell(row, name);
  if (s != "0" && s != "1") {
    throw InputError({t.file(), row.line, column_of(t, name)}, name, "expected 0 or 1, got \"" + s + "\"");
  }
  return s == "1";
}

}  // namespace

const std::vector<std::string>& validation_quantities() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& q : kComparedQuantities) out.emplace_back(q.name);
    return out;
  }();
  return names;
}

const std::vector<std::string>& residual_columns() {
  static const std::vector<std::string> cols{"row_id", "source", "quantity", "measured", "predicted",
                                             "time_ratio", "fp8", "moe", "gpus", "calibration_p90"};
  return cols;
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

double band_calibration_p90(const DeviceProfile& p) noexcept {
  const auto& cal = p.fits.calibration;
  return p.measured() && cal && cal->gemm_holdout_count > 0 ? cal->gemm_holdout_p90 : 0.0;
}

std::vector<Residual> parse_residuals(const CsvTable& t) {
  t.require_columns(residual_columns());
  std::vector<Residual> out;
  out.reserve(t.rows().size());
  for (const auto& row : t.rows()) {
    Residual r;
    r.id = t.cell(row, "row_id");
    r.source = t.cell(row, "source");
    if (r.id.empty()) throw InputError({t.file(), row.line, column_of(t, "row_id")}, "row_id", "empty row id");
    const std::string& q = t.cell(row, "quantity");
    if (const auto& known = validation_quantities(); std::find(known.begin(), known.end(), q) == known.end()) {
      std::string expected;
      for (std::size_t i = 0; i < known.size(); ++i) {
        expected += (i == 0 ? "" : i + 1 == known.size() ? " or " : ", ") + known[i];
      }
      throw InputError({t.file(), row.line, column_of(t, "quantity")}, "quantity",
                       "expected " + expected + ", got \"" + q + "\"");
    }
    positive(t, row, "measured");
    positive(t, row, "predicted");
    r.time_ratio = positive(t, row, "time_ratio");
    r.fp8 = flag(t, row, "fp8");
    r.moe = flag(t, row, "moe");
    const double gpus = positive(t, row, "gpus");
    if (gpus != std::floor(gpus)) {
      throw InputError({t.file(), row.line, column_of(t, "gpus")}, "gpus", "expected a whole number of GPUs");
    }
    r.gpus = static_cast<int>(gpus);
    const std::string& cal = t.cell(row, "calibration_p90");
    const auto [end, ec] = std::from_chars(cal.data(), cal.data() + cal.size(), r.calibration_p90);
    if (ec != std::errc{} || end != cal.data() + cal.size() || !(r.calibration_p90 >= 0 && r.calibration_p90 < 1)) {
      throw InputError({t.file(), row.line, column_of(t, "calibration_p90")}, "calibration_p90",
                       "expected a relative error in [0, 1), got \"" + cal + "\"");
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<Residual> read_residuals(const std::string& path) { return parse_residuals(CsvTable::load(path)); }

Coverage held_out_coverage(const std::vector<Residual>& residuals, double level) {
  Coverage c;
  std::vector<Residual> others;
  for (std::size_t i = 0; i < residuals.size(); ++i) {
    const Residual& r = residuals[i];
    others.clear();
    for (std::size_t k = 0; k < residuals.size(); ++k) {
      if (k != i) others.push_back(residuals[k]);
    }
    // A band for a prediction of 1 s bounds the ratio measured / predicted itself.
    const ErrorBand b = error_band(1.0, BandQuery{r.fp8, r.moe, r.gpus}, others, r.calibration_p90, level);
    if (!b.valid()) continue;
    ++c.rows;
    if (r.time_ratio >= b.low && r.time_ratio <= b.high) ++c.held;
  }
  return c;
}

ResidualSet load_residual_set(const std::string& path) {
  ResidualSet s;
  s.path = path;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    s.problem = path + " not found (regenerate it with clustersim validate --residuals-out)";
    return s;
  }
  try {
    s.residuals = read_residuals(path);
    s.coverage = held_out_coverage(s.residuals, kStepBandLevel);
  } catch (const InputError& e) {
    s.problem = e.what();
  }
  return s;
}

ErrorBand step_band(const BandQuery& q, const DeviceProfile& p, double step_s, const ResidualSet& set) {
  if (!set.problem.empty()) {
    ErrorBand none;
    none.level = kStepBandLevel;
    none.basis = "no validation residuals: " + set.problem;
    return none;
  }
  ErrorBand b = error_band(step_s, q, set.residuals, band_calibration_p90(p), kStepBandLevel);
  if (b.valid()) {
    b.basis += "; tested leaving each row out, such bands held " + std::to_string(set.coverage.held) + " of " +
               std::to_string(set.coverage.rows) + " rows";
  }
  return b;
}

}  // namespace cs
