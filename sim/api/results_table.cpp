#include "sim/api/results_table.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/sweep/result_merge.hpp"
#include "sim/sweep/result_query.hpp"

namespace cs::api {

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const auto c = s.find(',', pos);
    const std::string part = s.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
    if (!part.empty()) out.push_back(part);
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

/// The records on the Pareto front of `objectives` (resolved in place), by their first objective; the ok records
/// that have every objective are counted in `candidates`.
std::vector<ResultRecord> pareto_records(const std::vector<ResultRecord>& records, std::vector<Objective>& objectives,
                                         std::size_t& candidates) {
  std::vector<ResultRecord> usable;
  std::vector<std::vector<double>> values;
  for (const ResultRecord& r : records) {
    std::vector<double> v;
    for (const auto& o : objectives) {
      const Cell* c = r.find(o.field);
      if (!c || !std::holds_alternative<double>(*c)) break;
      v.push_back(o.maximise ? -std::get<double>(*c) : std::get<double>(*c));
    }
    if (v.size() != objectives.size() || cell_text(*r.find("status")) != "ok") continue;
    usable.push_back(r);
    values.push_back(std::move(v));
  }
  std::vector<std::size_t> front = pareto_front(values);
  std::sort(front.begin(), front.end(), [&](std::size_t i, std::size_t j) { return values[i] < values[j]; });
  std::vector<ResultRecord> kept;
  for (const std::size_t i : front) kept.push_back(usable[i]);
  candidates = usable.size();
  return kept;
}

}  // namespace

ResultsTable query_results(const ResultsQuery& q) {
  const ResultStore store = ResultStore::open(q.db, ResultStore::Mode::read_only);
  std::vector<ResultRecord> records;
  for (const ResultRow& row : store.rows()) records.push_back(to_record(row));

  for (const std::string& w : q.where) {
    Condition c = parse_condition(w);
    c.field = resolve_field(records, c.field, "--where");
    std::erase_if(records, [&](const ResultRecord& r) { return !c.holds(r); });
  }
  ResultsTable table;
  table.columns = {"point", "status", "label"};
  std::vector<Objective> objectives;
  if (!q.pareto.empty()) {
    for (const std::string& o : split(q.pareto)) objectives.push_back(parse_objective(o));
    if (objectives.size() < 2 || objectives.size() > 3) {
      throw InputError({}, "--pareto", "names two or three outputs, e.g. time_to_train_s,tco_usd_per_year");
    }
    for (auto& o : objectives) {
      o.field = resolve_field(records, o.field, "--pareto");
      table.columns.push_back(o.field);
    }
    std::size_t candidates = 0;
    records = pareto_records(records, objectives, candidates);
    table.pareto_candidates = candidates;
  }
  const std::vector<std::string> wanted =
      q.columns.empty() ? (objectives.empty() ? std::vector<std::string>{"step_time_s", "mfu", "peak_memory_bytes",
                                                                        "time_to_train_s", "tco_usd_per_year",
                                                                        // a schedule sweep's
                                                                        "slo_attainment_min", "gpu_allocated_fraction",
                                                                        "gpu_busy_fraction", "energy_kwh",
                                                                        "peak_facility_kw", "tco_usd", "reason"}
                                              : std::vector<std::string>{})
                        : split(q.columns);
  for (const std::string& w : wanted) {
    try {
      const std::string f = resolve_field(records, w, "--columns");
      if (std::find(table.columns.begin(), table.columns.end(), f) == table.columns.end()) table.columns.push_back(f);
    } catch (const InputError&) {
      if (!q.columns.empty()) throw;  // default columns absent from these results are just left out
    }
  }
  for (const ResultRecord& r : records) {
    std::vector<ResultCell> line;
    for (const std::string& c : table.columns) {
      const Cell* v = r.find(c);
      line.push_back(v ? *v : ResultCell{});
    }
    table.rows.push_back(std::move(line));
  }
  return table;
}

std::string results_text(const ResultsTable& t) {
  std::vector<std::size_t> width(t.columns.size());
  std::vector<std::vector<std::string>> cells;
  for (std::size_t i = 0; i < t.columns.size(); ++i) width[i] = t.columns[i].size();
  for (const auto& row : t.rows) {
    std::vector<std::string> line;
    for (std::size_t i = 0; i < t.columns.size(); ++i) {
      line.push_back(cell_text(row[i]));
      width[i] = std::max(width[i], std::min<std::size_t>(line.back().size(), 60));
    }
    cells.push_back(std::move(line));
  }
  std::string out;
  for (std::size_t i = 0; i < t.columns.size(); ++i) out += fmt::format("{:<{}}  ", t.columns[i], width[i]);
  out += "\n";
  for (const auto& line : cells) {
    for (std::size_t i = 0; i < line.size(); ++i) out += fmt::format("{:<{}}  ", line[i].substr(0, 60), width[i]);
    out += "\n";
  }
  return out + fmt::format("{} rows\n", cells.size());
}

std::string results_csv(const ResultsTable& t) {
  std::string out;
  for (std::size_t i = 0; i < t.columns.size(); ++i) out += (i ? "," : "") + csv_field(t.columns[i]);
  out += "\n";
  for (const auto& row : t.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + csv_field(cell_text(row[i]));
    out += "\n";
  }
  return out;
}

nlohmann::ordered_json results_json(const ResultsTable& t) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& row : t.rows) {
    nlohmann::ordered_json e;
    for (std::size_t i = 0; i < t.columns.size(); ++i) {
      const ResultCell& v = row[i];
      if (std::holds_alternative<std::monostate>(v)) e[t.columns[i]] = nullptr;
      else if (std::holds_alternative<double>(v)) e[t.columns[i]] = std::get<double>(v);
      else e[t.columns[i]] = std::get<std::string>(v);
    }
    j.push_back(std::move(e));
  }
  return j;
}

MergeCounts merge_results(const std::string& out, const std::vector<std::string>& shards) {
  const MergeSummary s = cs::merge_results(out, shards);
  return {.rows_read = s.rows_read, .rows_added = s.rows_added};
}

}  // namespace cs::api
