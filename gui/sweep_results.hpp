// The points of a sweep results database (docs/sweeps.md, written by `clustersim sweep`), read with plain SQLite:
// each row's axis values and every number of its JSON result, flattened by dotted path as `clustersim results`
// names them (`step_time_s`, `tco.tco_usd_per_year`). The schema is inspected (PRAGMA table_info), not assumed:
// only a `points` table with a `result` column is required; `axes`, `label`, `scenario_yaml` and `status` are
// used when present.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cs::gui {

struct SweepPoint {
  std::string label;
  std::string status;                       ///< "ok" or "failed" ("ok" when the table has no status)
  std::string scenario_yaml;                ///< empty when the table has none
  std::map<std::string, double> numbers;    ///< numeric axes (numbers written as text too) and the result's numbers
  std::map<std::string, std::string> texts; ///< text axes ("cluster.profile": "h200-sxm")
};

class SweepResults {
 public:
  /// Reads every row of `path`; throws std::runtime_error naming the file when it is not SQLite or has no
  /// `points` table with a `result` column.
  static SweepResults open(const std::string& path);

  [[nodiscard]] const std::vector<SweepPoint>& points() const noexcept { return points_; }
  /// The axis keys, in the order of the first row's `axes` object.
  [[nodiscard]] const std::vector<std::string>& axes() const noexcept { return axes_; }
  /// Every numeric field some point has (axes first, then result fields), sorted after the axes.
  [[nodiscard]] std::vector<std::string> numeric_fields() const;
  /// The value of `field` for `p`: a number, or the index of its text among the field's distinct texts.
  [[nodiscard]] std::optional<double> value(const SweepPoint& p, const std::string& field) const;
  /// The distinct texts of a text field, in first-seen order (empty for a numeric field).
  [[nodiscard]] std::vector<std::string> categories(const std::string& field) const;

 private:
  std::vector<SweepPoint> points_;
  std::vector<std::string> axes_;
};

/// Indices of the points no other point beats in both `x` and `y` (both minimised), sorted by x.
[[nodiscard]] std::vector<std::size_t> pareto_front(const std::vector<std::pair<double, double>>& xy);

}  // namespace cs::gui
