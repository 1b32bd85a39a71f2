#pragma once

#include <CLI/CLI.hpp>

namespace cs::cli {

/// `clustersim design SCENARIO [--gpus N] [--budget USD] [--power KW] [--json OUT]`: every candidate fabric for
/// the scenario's job, simulated and priced, with the Pareto front and the best under the limits (docs/design.md).
void register_design_command(CLI::App& app);

}  // namespace cs::cli
