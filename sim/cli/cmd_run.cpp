#include "sim/cli/cmd_run.hpp"

#include <iostream>
#include <memory>

#include "sim/core/atomic_file.hpp"
#include "sim/report/json_result.hpp"
#include "sim/report/text_summary.hpp"
#include "sim/report/trace_writer.hpp"
#include "sim/scenario/runner.hpp"

namespace cs::cli {

namespace {
struct RunArgs {
  std::string scenario;
  std::string json;
  std::string trace;
  std::string profile;
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
  run->callback([args] {
    // Everything is validated and simulated before any output file is touched.
    const Scenario sc = load_scenario(args->scenario, args->profile);
    TraceWriter trace;
    std::vector<ReplayObserver*> observers;
    if (!args->trace.empty()) observers.push_back(&trace);
    const RunResult r = run_scenario(sc, observers);
    const std::string json = to_json(sc, r).dump(2) + "\n";
    const std::string trace_json = args->trace.empty() ? std::string{} : trace.to_json();
    (args->json == "-" ? std::cerr : std::cout) << text_summary(sc, r);
    if (!args->json.empty()) write_file_atomically(args->json, json);
    if (!args->trace.empty()) write_file_atomically(args->trace, trace_json);
  });
}

}  // namespace cs::cli
