#pragma once

#include <CLI/CLI.hpp>

namespace cs::cli {

/// `clustersim tco SCENARIO.yaml [--csv] [--pricebook FILE] [--profile P]`: the full power, reliability and cost
/// breakdown of a scenario.
void register_tco_command(CLI::App& app);

}  // namespace cs::cli
