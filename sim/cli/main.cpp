// clustersim: size a GPU training cluster before buying it. A thin shell over the library: each subcommand
// lives in its own cmd_*.cpp and calls the same public API as the GUI and the sweep runner.
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

#include "sim/cli/cmd_collective.hpp"
#include "sim/cli/cmd_cost.hpp"
#include "sim/cli/cmd_design.hpp"
#include "sim/cli/cmd_plan.hpp"
#include "sim/cli/cmd_results.hpp"
#include "sim/cli/cmd_run.hpp"
#include "sim/cli/cmd_schema.hpp"
#include "sim/cli/cmd_schedule.hpp"
#include "sim/cli/cmd_sweep.hpp"
#include "sim/cli/cmd_tco.hpp"
#include "sim/cli/cmd_validate.hpp"
#include "sim/api/clustersim.hpp"
#include "sim/cli/exit_codes.hpp"

int main(int argc, char** argv) {
  CLI::App app{"clustersim: simulate LLM training on a GPU cluster and report step time, MFU, memory, power and cost"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "clustersim " + cs::api::version());
  cs::cli::register_run_command(app);
  cs::cli::register_validate_command(app);
  cs::cli::register_tco_command(app);
  cs::cli::register_cost_command(app);
  cs::cli::register_collective_command(app);
  cs::cli::register_sweep_command(app);
  cs::cli::register_schedule_command(app);
  cs::cli::register_results_command(app);
  cs::cli::register_plan_command(app);
  cs::cli::register_design_command(app);
  cs::cli::register_schema_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return cs::cli::kBadInput;
  } catch (const cs::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return cs::cli::kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return cs::cli::kInternalError;
  }
  return cs::cli::kOk;
}
