// `cs_collective_tool ARGS` = `clustersim collective ARGS`, without the rest of clustersim.
#include <iostream>

#include "sim/cli/cmd_collective.hpp"
#include "sim/core/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"clustersim collective, stand-alone"};
  app.require_subcommand(1);
  cs::cli::register_collective_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const cs::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
