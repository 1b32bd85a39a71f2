#include "sim/cli/cmd_schedule.hpp"

#include <iostream>
#include <memory>

#include "sim/api/clustersim.hpp"
#include "sim/cli/settings_option.hpp"

namespace cs::cli {

void register_schedule_command(CLI::App& app) {
  struct Args {
    std::string file, json, trace;
    std::vector<std::string> set;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "schedule", "Simulate a shared cluster over time: jobs, services, a scheduling policy and isolation "
                  "(docs/schedule.md)");
  cmd->add_option("schedule", a->file, "Schedule file (YAML, see docs/schedule.md)")->required();
  cmd->add_option("--json", a->json, "Write the machine-readable result to FILE ('-' for standard output)")
      ->type_name("FILE");
  cmd->add_option("--trace", a->trace, "Write a Chrome/Perfetto trace of the jobs and replicas on the nodes")
      ->type_name("FILE");
  add_settings_option(*cmd, a->set);
  cmd->callback([a] {
    // Everything is loaded, simulated and rendered before anything is written.
    const ScheduleRun run = api::schedule(a->file, parse_settings(a->set));
    const std::string json = schedule_json(run).dump(2) + "\n";
    const std::string trace = a->trace.empty() ? "" : schedule_trace(run);
    (a->json == "-" ? std::cerr : std::cout) << schedule_summary(run);
    if (a->json == "-") {
      std::cout << json;
    } else if (!a->json.empty()) {
      write_file_atomically(a->json, json);
    }
    if (!a->trace.empty()) write_file_atomically(a->trace, trace);
  });
}

}  // namespace cs::cli
