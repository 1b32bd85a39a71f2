// Reading a results database as a table: every row's JSON result flattened to dotted output names
// ("step_time_s", "tco.tco_usd_per_year", "power.facility_peak_w"), the axis values and the row's own
// columns, filtered by --where conditions and reduced to a Pareto front over two or three outputs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sim/store/result_store.hpp"

namespace cs {

using Cell = std::variant<std::monostate, double, std::string>;

/// One row: the database columns (status, label, sweep, point, profile, reason), the axes by key, and every
/// scalar leaf of the JSON result by dotted path.
struct ResultRecord {
  std::map<std::string, Cell> fields;
  [[nodiscard]] const Cell* find(const std::string& name) const;
};

[[nodiscard]] ResultRecord to_record(const ResultRow& row);

/// The full field name `name` stands for in `records`: itself when present, else the unique field whose last
/// dotted component is `name` (the shortest when several). Throws InputError (key `option`) when none.
[[nodiscard]] std::string resolve_field(const std::vector<ResultRecord>& records, const std::string& name,
                                        const std::string& option);

/// "name OP value" with OP one of = != < <= > >=; numbers compare as numbers, anything else as text.
struct Condition {
  std::string field;
  std::string op;
  std::string value;
  [[nodiscard]] bool holds(const ResultRecord& r) const;
};
[[nodiscard]] Condition parse_condition(const std::string& text);

/// An objective of --pareto: a field, minimised unless written "name:max".
struct Objective {
  std::string field;
  bool maximise = false;
};
[[nodiscard]] Objective parse_objective(const std::string& text);

/// Indices of the points no other point dominates (all objectives minimised: at least as good in every one
/// and strictly better in one). O(n^2) pairwise comparison.
[[nodiscard]] std::vector<std::size_t> pareto_front(const std::vector<std::vector<double>>& points);

[[nodiscard]] std::string cell_text(const Cell& c);

}  // namespace cs
