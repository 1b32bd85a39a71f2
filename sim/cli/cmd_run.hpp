#pragma once

#include <CLI/CLI.hpp>

namespace cs::cli {

/// `clustersim run SCENARIO.yaml [--json FILE|-] [--trace FILE] [--profile P]`.
void register_run_command(CLI::App& app);

}  // namespace cs::cli
