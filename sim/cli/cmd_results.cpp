#include "sim/cli/cmd_results.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "sim/api/clustersim.hpp"

namespace cs::cli {

namespace {
struct ResultsArgs {
  api::ResultsQuery query;
  bool csv = false;
  bool json = false;
  std::string merge_out;
  std::vector<std::string> merge_in;
};

void show(const ResultsArgs& a) {
  const api::ResultsTable t = api::query_results(a.query);
  if (t.pareto_candidates) {
    std::cerr << fmt::format("Pareto front over {}: {} of {} ok points\n", a.query.pareto, t.rows.size(),
                             *t.pareto_candidates);
  }
  if (a.json) std::cout << api::results_json(t).dump(2) << "\n";
  else if (a.csv) std::cout << api::results_csv(t);
  else std::cout << api::results_text(t);
}
}  // namespace

void register_results_command(CLI::App& app) {
  auto a = std::make_shared<ResultsArgs>();
  CLI::App* cmd = app.add_subcommand("results", "Show a results database: tables, filters, Pareto fronts; merge shards");
  cmd->add_option("db", a->query.db, "Results database written by `clustersim sweep`");
  cmd->add_option("--pareto", a->query.pareto,
                  "The Pareto front over two or three outputs (minimised; NAME:max maximises)")
      ->type_name("A,B[,C]");
  cmd->add_option("--columns", a->query.columns, "Outputs to show (dotted names or their last part)")
      ->type_name("A,B,...");
  cmd->add_option("--where", a->query.where, "Keep rows where NAME OP VALUE holds (OP: = != < <= > >=); repeatable")
      ->type_name("COND");
  auto* csv = cmd->add_flag("--csv", a->csv, "CSV on standard output");
  cmd->add_flag("--json", a->json, "JSON on standard output")->excludes(csv);
  CLI::App* merge = cmd->add_subcommand("merge", "Merge shard databases into OUT (idempotent: every point once)");
  merge->add_option("out", a->merge_out, "Output database (created when absent)")->required();
  merge->add_option("shards", a->merge_in, "Shard databases")->required();
  merge->callback([a] {
    const api::MergeCounts s = api::merge_results(a->merge_out, a->merge_in);
    std::cout << fmt::format("merged {} shards: {} rows read, {} new in {}\n", a->merge_in.size(), s.rows_read,
                             s.rows_added, a->merge_out);
  });
  cmd->callback([a, merge] {
    if (merge->parsed()) return;
    if (a->query.db.empty()) {
      throw InputError({}, "results", "name a results database (or: results merge OUT SHARDS...)");
    }
    show(*a);
  });
}

}  // namespace cs::cli
