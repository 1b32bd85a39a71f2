#include "sim/sweep/result_query.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <charconv>

#include "sim/core/error.hpp"

namespace cs {
namespace {

void flatten(const nlohmann::json& j, const std::string& prefix, std::map<std::string, Cell>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
  } else if (j.is_number()) {
    out[prefix] = j.get<double>();
  } else if (j.is_boolean()) {
    out[prefix] = j.get<bool>() ? 1.0 : 0.0;
  } else if (j.is_string()) {
    out[prefix] = j.get<std::string>();
  }
  // Arrays (bill of materials, link lists, warnings) are left in the stored JSON.
}

std::optional<double> number(const std::string& s) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

const Cell* ResultRecord::find(const std::string& name) const {
  const auto it = fields.find(name);
  return it == fields.end() ? nullptr : &it->second;
}

ResultRecord to_record(const ResultRow& row) {
  ResultRecord r;
  r.fields["point"] = static_cast<double>(row.point_index);
  r.fields["status"] = row.status;
  r.fields["label"] = row.label;
  r.fields["sweep"] = row.sweep;
  r.fields["hash"] = row.hash;
  r.fields["profile"] = row.profile;
  r.fields["profile_source"] = row.profile_source;
  r.fields["reason"] = row.reason;
  const nlohmann::json axes = nlohmann::json::parse(row.axes);
  for (auto it = axes.begin(); it != axes.end(); ++it) {
    const std::string& k = it.key();
    const std::string text = it.value().get<std::string>();
    if (auto n = number(text)) r.fields[k] = *n;
    else r.fields[k] = text;
  }
  if (row.result) flatten(nlohmann::json::parse(*row.result), "", r.fields);
  if (row.plan) flatten(nlohmann::json::parse(*row.plan), "plan", r.fields);
  return r;
}

std::string resolve_field(const std::vector<ResultRecord>& records, const std::string& name, const std::string& option) {
  std::string best;
  bool ambiguous = false;
  for (const auto& rec : records) {
    if (rec.find(name)) return name;
    for (const auto& [k, v] : rec.fields) {
      if (k.size() > name.size() && k.compare(k.size() - name.size(), name.size(), name) == 0 &&
          k[k.size() - name.size() - 1] == '.') {
        if (best.empty() || k.size() < best.size()) {
          ambiguous = false;
          best = k;
        } else if (k.size() == best.size() && k != best) {
          ambiguous = true;
        }
      }
    }
  }
  if (best.empty()) throw InputError({}, option, "no output or column named '" + name + "' in the results");
  if (ambiguous) throw InputError({}, option, "'" + name + "' names several outputs; write the full dotted name");
  return best;
}

Condition parse_condition(const std::string& text) {
  for (const char* op : {"<=", ">=", "!=", "=", "<", ">"}) {
    const auto pos = text.find(op);
    if (pos != std::string::npos && pos > 0) {
      Condition c{text.substr(0, pos), op, text.substr(pos + std::string(op).size())};
      const auto trim = [](std::string& s) {
        s.erase(0, s.find_first_not_of(' '));
        s.erase(s.find_last_not_of(' ') + 1);
      };
      trim(c.field);
      trim(c.value);
      return c;
    }
  }
  throw InputError({}, "--where", "'" + text + "' is not NAME OP VALUE (OP: = != < <= > >=)");
}

bool Condition::holds(const ResultRecord& r) const {
  const Cell* c = r.find(field);
  if (!c || std::holds_alternative<std::monostate>(*c)) return false;
  int cmp = 0;
  const auto want = number(value);
  if (std::holds_alternative<double>(*c) && want) {
    const double v = std::get<double>(*c);
    cmp = v < *want ? -1 : v > *want ? 1 : 0;
  } else {
    const std::string v = cell_text(*c);
    cmp = v.compare(value);
    cmp = cmp < 0 ? -1 : cmp > 0 ? 1 : 0;
  }
  if (op == "=") return cmp == 0;
  if (op == "!=") return cmp != 0;
  if (op == "<") return cmp < 0;
  if (op == "<=") return cmp <= 0;
  if (op == ">") return cmp > 0;
  return cmp >= 0;
}

Objective parse_objective(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) return {text, false};
  const std::string dir = text.substr(colon + 1);
  if (dir != "max" && dir != "min") throw InputError({}, "--pareto", "'" + text + "': write NAME, NAME:min or NAME:max");
  return {text.substr(0, colon), dir == "max"};
}

std::vector<std::size_t> pareto_front(const std::vector<std::vector<double>>& points) {
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < points.size(); ++i) {
    bool dominated = false;
    for (std::size_t j = 0; j < points.size() && !dominated; ++j) {
      if (i == j) continue;
      bool no_worse = true, better = false;
      for (std::size_t k = 0; k < points[i].size(); ++k) {
        if (points[j][k] > points[i][k]) no_worse = false;
        if (points[j][k] < points[i][k]) better = true;
      }
      dominated = no_worse && better;
    }
    if (!dominated) front.push_back(i);
  }
  return front;
}

std::string cell_text(const Cell& c) {
  if (std::holds_alternative<double>(c)) return fmt::format("{:.6g}", std::get<double>(c));
  if (std::holds_alternative<std::string>(c)) return std::get<std::string>(c);
  return "";
}

}  // namespace cs
