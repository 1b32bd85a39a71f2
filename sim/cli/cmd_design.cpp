#include "sim/cli/cmd_design.hpp"

#include <iostream>
#include <memory>

#include "sim/api/clustersim.hpp"
#include "sim/cli/settings_option.hpp"

namespace cs::cli {

void register_design_command(CLI::App& app) {
  struct DesignArgs {
    std::string scenario;
    std::string profile;
    std::string json;
    int gpus = 0;
    double budget = -1;
    double power = -1;
    int threads = 0;
    std::vector<std::string> set;
  };
  auto a = std::make_shared<DesignArgs>();
  CLI::App* cmd = app.add_subcommand(
      "design", "Synthesise candidate fabrics for the scenario's job or the schedule's cluster (fat-trees, "
                "rail-optimized, rail-only, torus, hypercube, dragonfly, OCS), simulate and price each, and print the "
                "Pareto front");
  cmd->add_option("scenario", a->scenario,
                  "Scenario file with a training job and a token budget, or a schedule file (docs/schedule.md): "
                  "the whole schedule simulated on each candidate")
      ->required();
  cmd->add_option("--gpus", a->gpus, "GPUs of the build (default: the scenario's cluster.gpus)")->check(CLI::PositiveNumber);
  cmd->add_option("--budget", a->budget, "Hardware capex limit in USD")->check(CLI::PositiveNumber)->type_name("USD");
  cmd->add_option("--power", a->power, "IT peak power limit in kW")->check(CLI::PositiveNumber)->type_name("KW");
  cmd->add_option("--threads", a->threads, "Candidates simulated at once (default: all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--json", a->json, "Write the candidates as JSON to FILE ('-' for standard output)")->type_name("FILE|-");
  cmd->add_option("--profile", a->profile, "Device profile name or file, replacing the scenario's cluster.profile")
      ->type_name("NAME|FILE");
  add_settings_option(*cmd, a->set);
  cmd->callback([a] {
    api::DesignRequest req;
    req.gpus = a->gpus;
    if (a->budget > 0) req.budget_usd = a->budget;
    if (a->power > 0) req.power_kw = a->power;
    req.threads = a->threads;
    const DesignReport rep = api::design({.path = a->scenario, .text = {}, .set = parse_settings(a->set),
                                          .profile = a->profile}, req);
    if (!a->json.empty()) {
      const std::string s = design_json(rep).dump(2) + "\n";
      if (a->json == "-") {
        std::cout << s;
        return;
      }
      write_file_atomically(a->json, s);
    }
    std::cout << design_text(rep);
  });
}

}  // namespace cs::cli
