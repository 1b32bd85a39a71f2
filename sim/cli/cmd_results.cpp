#include "sim/cli/cmd_results.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <memory>

#include "sim/core/error.hpp"
#include "sim/sweep/result_merge.hpp"
#include "sim/sweep/result_query.hpp"

namespace cs::cli {

namespace {
struct ResultsArgs {
  std::string db;
  std::string pareto;
  std::string columns;
  std::vector<std::string> where;
  bool csv = false;
  bool json = false;
  std::string merge_out;
  std::vector<std::string> merge_in;
};

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

void show(const ResultsArgs& a) {
  const ResultStore store = ResultStore::open(a.db, ResultStore::Mode::read_only);
  std::vector<ResultRecord> records;
  for (const ResultRow& row : store.rows()) records.push_back(to_record(row));

  for (const std::string& w : a.where) {
    Condition c = parse_condition(w);
    c.field = resolve_field(records, c.field, "--where");
    std::erase_if(records, [&](const ResultRecord& r) { return !c.holds(r); });
  }
  std::vector<std::string> columns{"point", "status", "label"};
  std::vector<Objective> objectives;
  if (!a.pareto.empty()) {
    for (const std::string& o : split(a.pareto)) objectives.push_back(parse_objective(o));
    if (objectives.size() < 2 || objectives.size() > 3) {
      throw InputError({}, "--pareto", "names two or three outputs, e.g. time_to_train_s,tco_usd_per_year");
    }
    for (auto& o : objectives) {
      o.field = resolve_field(records, o.field, "--pareto");
      columns.push_back(o.field);
    }
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
    std::cerr << fmt::format("Pareto front over {}: {} of {} ok points\n", a.pareto, kept.size(), usable.size());
    records = std::move(kept);
  }
  const std::vector<std::string> wanted =
      a.columns.empty() ? (objectives.empty() ? std::vector<std::string>{"step_time_s", "mfu", "peak_memory_bytes",
                                                                        "time_to_train_s", "tco_usd_per_year", "reason"}
                                              : std::vector<std::string>{})
                        : split(a.columns);
  for (const std::string& w : wanted) {
    try {
      const std::string f = resolve_field(records, w, "--columns");
      if (std::find(columns.begin(), columns.end(), f) == columns.end()) columns.push_back(f);
    } catch (const InputError&) {
      if (!a.columns.empty()) throw;  // default columns absent from these results are just left out
    }
  }

  if (a.json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const ResultRecord& r : records) {
      nlohmann::ordered_json e;
      for (const auto& c : columns) {
        const Cell* v = r.find(c);
        if (!v || std::holds_alternative<std::monostate>(*v)) e[c] = nullptr;
        else if (std::holds_alternative<double>(*v)) e[c] = std::get<double>(*v);
        else e[c] = std::get<std::string>(*v);
      }
      j.push_back(std::move(e));
    }
    std::cout << j.dump(2) << "\n";
    return;
  }
  if (a.csv) {
    for (std::size_t i = 0; i < columns.size(); ++i) std::cout << (i ? "," : "") << csv_field(columns[i]);
    std::cout << "\n";
    for (const ResultRecord& r : records) {
      for (std::size_t i = 0; i < columns.size(); ++i) {
        const Cell* v = r.find(columns[i]);
        std::cout << (i ? "," : "") << csv_field(v ? cell_text(*v) : "");
      }
      std::cout << "\n";
    }
    return;
  }
  std::vector<std::size_t> width(columns.size());
  std::vector<std::vector<std::string>> cells;
  for (std::size_t i = 0; i < columns.size(); ++i) width[i] = columns[i].size();
  for (const ResultRecord& r : records) {
    std::vector<std::string> line;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const Cell* v = r.find(columns[i]);
      line.push_back(v ? cell_text(*v) : "");
      width[i] = std::max(width[i], std::min<std::size_t>(line.back().size(), 60));
    }
    cells.push_back(std::move(line));
  }
  for (std::size_t i = 0; i < columns.size(); ++i) std::cout << fmt::format("{:<{}}  ", columns[i], width[i]);
  std::cout << "\n";
  for (const auto& line : cells) {
    for (std::size_t i = 0; i < line.size(); ++i) std::cout << fmt::format("{:<{}}  ", line[i].substr(0, 60), width[i]);
    std::cout << "\n";
  }
  std::cout << fmt::format("{} rows\n", cells.size());
}
}  // namespace

void register_results_command(CLI::App& app) {
  auto a = std::make_shared<ResultsArgs>();
  CLI::App* cmd = app.add_subcommand("results", "Show a results database: tables, filters, Pareto fronts; merge shards");
  cmd->add_option("db", a->db, "Results database written by `clustersim sweep`");
  cmd->add_option("--pareto", a->pareto, "The Pareto front over two or three outputs (minimised; NAME:max maximises)")
      ->type_name("A,B[,C]");
  cmd->add_option("--columns", a->columns, "Outputs to show (dotted names or their last part)")->type_name("A,B,...");
  cmd->add_option("--where", a->where, "Keep rows where NAME OP VALUE holds (OP: = != < <= > >=); repeatable")
      ->type_name("COND");
  auto* csv = cmd->add_flag("--csv", a->csv, "CSV on standard output");
  cmd->add_flag("--json", a->json, "JSON on standard output")->excludes(csv);
  CLI::App* merge = cmd->add_subcommand("merge", "Merge shard databases into OUT (idempotent: every point once)");
  merge->add_option("out", a->merge_out, "Output database (created when absent)")->required();
  merge->add_option("shards", a->merge_in, "Shard databases")->required();
  merge->callback([a] {
    const MergeSummary s = merge_results(a->merge_out, a->merge_in);
    std::cout << fmt::format("merged {} shards: {} rows read, {} new in {}\n", a->merge_in.size(), s.rows_read,
                             s.rows_added, a->merge_out);
  });
  cmd->callback([a, merge] {
    if (merge->parsed()) return;
    if (a->db.empty()) throw InputError({}, "results", "name a results database (or: results merge OUT SHARDS...)");
    show(*a);
  });
}

}  // namespace cs::cli
