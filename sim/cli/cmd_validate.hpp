#pragma once

#include <CLI/CLI.hpp>

namespace cs::cli {

/// `clustersim validate ROWS.csv [--json FILE|-]`: predictions against published measurements.
void register_validate_command(CLI::App& app);

}  // namespace cs::cli
