#include "sim/cli/cmd_run.hpp"

#include <iostream>
#include <memory>

#include "sim/api/clustersim.hpp"
#include "sim/cli/settings_option.hpp"

namespace cs::cli {

namespace {
struct RunArgs {
  std::string scenario;
  std::string json;
  std::string trace;
  std::string profile;
  std::vector<std::string> set;
};
}  // namespace

void register_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand("run", "Simulate one training step of a scenario and print the sizing summary");
  run->add_option("scenario", args->scenario, "Scenario file (YAML, see docs/scenario.md)")->required();
  run->add_option("--json", args->json, "Write the machine-readable result to FILE ('-' for standard output)")
      ->type_name("FILE|-");
  run->add_option("--trace", args->trace, "Write a Chrome/Perfetto trace-event JSON of the simulated step")
      ->type_name("FILE");
  run->add_option("--profile", args->profile, "Device profile name or file, replacing the scenario's cluster.profile")
      ->type_name("NAME|FILE");
  add_settings_option(*run, args->set);
  run->callback([args] {
    // Everything is validated and simulated before any output file is touched.
    const Scenario sc = api::load({.path = args->scenario, .text = {}, .set = parse_settings(args->set),
                                   .profile = args->profile});
    std::string trace_json;
    api::RunOptions options;
    if (!args->trace.empty()) options.trace_json = &trace_json;
    const RunResult r = api::run(sc, options);
    const std::string json = api::result_json(sc, r).dump(2) + "\n";
    (args->json == "-" ? std::cerr : std::cout) << text_summary(sc, r);
    if (!args->json.empty()) write_file_atomically(args->json, json);
    if (!args->trace.empty()) write_file_atomically(args->trace, trace_json);
  });
}

}  // namespace cs::cli
