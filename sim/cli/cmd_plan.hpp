#pragma once

#include <CLI/CLI.hpp>

namespace cs::cli {

/// `clustersim plan SCENARIO.yaml [--top K] [--sample S] [-j N] [--json FILE|-]`: search the parallel plan.
void register_plan_command(CLI::App& app);

}  // namespace cs::cli
