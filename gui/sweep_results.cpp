#include "gui/sweep_results.hpp"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <algorithm>
#include <memory>
#include <set>
#include <stdexcept>

namespace cs::gui {
namespace {

using Db = std::unique_ptr<sqlite3, decltype(&sqlite3_close)>;
using Stmt = std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)>;

Stmt prepare(sqlite3* db, const std::string& sql, const std::string& path) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    throw std::runtime_error(path + ": " + sqlite3_errmsg(db));
  }
  return Stmt(st, &sqlite3_finalize);
}

std::string column_text(sqlite3_stmt* st, int i) {
  const unsigned char* t = sqlite3_column_text(st, i);
  return t == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(t));
}

/// Every number under `j` by dotted path; arrays are skipped (per-link statistics, bill of materials lines).
void flatten(const nlohmann::json& j, const std::string& prefix, std::map<std::string, double>& out) {
  for (const auto& [key, v] : j.items()) {
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (v.is_object()) flatten(v, path, out);
    else if (v.is_number()) out[path] = v.get<double>();
  }
}

/// An axis value written as text that is a plain number ("256", "3e11"); units ("400Gbps") are not.
std::optional<double> plain_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  std::size_t used = 0;
  try {
    const double v = std::stod(s, &used);
    if (used == s.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

SweepResults SweepResults::open(const std::string& path) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  Db db(raw, &sqlite3_close);
  if (rc != SQLITE_OK) throw std::runtime_error(path + ": cannot open: " + sqlite3_errstr(rc));

  std::set<std::string> columns;
  try {
    Stmt info = prepare(db.get(), "PRAGMA table_info(points)", path);
    while (sqlite3_step(info.get()) == SQLITE_ROW) columns.insert(column_text(info.get(), 1));
  } catch (const std::runtime_error& e) {
    // "file is not a database" and the like.
    throw std::runtime_error(std::string(e.what()) + " (not a sweep results database)");
  }
  if (!columns.count("result")) {
    throw std::runtime_error(path + ": not a sweep results database: no table `points` with a `result` column");
  }
  const std::vector<std::string> wanted{"result", "axes", "label", "scenario_yaml", "status"};
  std::string select = "SELECT ";
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    select += (i ? ", " : "") + (columns.count(wanted[i]) ? wanted[i] : std::string("NULL"));
  }
  select += columns.count("point_index") ? " FROM points ORDER BY point_index" : " FROM points";

  SweepResults out;
  Stmt st = prepare(db.get(), select, path);
  int row = 0;
  while (sqlite3_step(st.get()) == SQLITE_ROW) {
    ++row;
    SweepPoint p;
    p.label = column_text(st.get(), 2);
    p.scenario_yaml = column_text(st.get(), 3);
    p.status = columns.count("status") ? column_text(st.get(), 4) : "ok";
    if (p.label.empty()) p.label = "row " + std::to_string(row);
    try {
      const std::string axes = column_text(st.get(), 1);
      if (!axes.empty()) {
        const nlohmann::json a = nlohmann::json::parse(axes);
        for (const auto& [key, v] : a.items()) {
          if (std::find(out.axes_.begin(), out.axes_.end(), key) == out.axes_.end()) out.axes_.push_back(key);
          if (v.is_number()) p.numbers[key] = v.get<double>();
          else if (const auto x = v.is_string() ? plain_number(v.get<std::string>()) : std::nullopt) p.numbers[key] = *x;
          else p.texts[key] = v.is_string() ? v.get<std::string>() : v.dump();
        }
      }
      const std::string result = column_text(st.get(), 0);
      if (!result.empty()) flatten(nlohmann::json::parse(result), "", p.numbers);
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(path + ": row " + std::to_string(row) + ": malformed JSON: " + e.what());
    }
    out.points_.push_back(std::move(p));
  }
  return out;
}

std::vector<std::string> SweepResults::numeric_fields() const {
  std::vector<std::string> out = axes_;
  std::set<std::string> rest;
  for (const SweepPoint& p : points_) {
    for (const auto& [key, v] : p.numbers) rest.insert(key);
  }
  for (const std::string& k : rest) {
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  return out;
}

std::vector<std::string> SweepResults::categories(const std::string& field) const {
  std::vector<std::string> out;
  for (const SweepPoint& p : points_) {
    auto it = p.texts.find(field);
    if (it != p.texts.end() && std::find(out.begin(), out.end(), it->second) == out.end()) out.push_back(it->second);
  }
  return out;
}

std::optional<double> SweepResults::value(const SweepPoint& p, const std::string& field) const {
  if (auto it = p.numbers.find(field); it != p.numbers.end()) return it->second;
  if (auto it = p.texts.find(field); it != p.texts.end()) {
    const std::vector<std::string> cats = categories(field);
    return static_cast<double>(std::find(cats.begin(), cats.end(), it->second) - cats.begin());
  }
  return std::nullopt;
}

std::vector<std::size_t> pareto_front(const std::vector<std::pair<double, double>>& xy) {
  std::vector<std::size_t> order(xy.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return xy[a] < xy[b]; });
  // Sorted by x then y: a point is on the front when its y is below every y before it. O(n log n).
  std::vector<std::size_t> front;
  double best_y = 0;
  for (std::size_t i : order) {
    if (front.empty() || xy[i].second < best_y) {
      front.push_back(i);
      best_y = xy[i].second;
    }
  }
  return front;
}

}  // namespace cs::gui
