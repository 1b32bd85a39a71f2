#pragma once

#include <CLI/CLI.hpp>

namespace cs::cli {

/// `clustersim results DB [--pareto a,b[,c]] [--columns ...] [--where ...] [--csv|--json]` and
/// `clustersim results merge OUT.sqlite SHARDS...`.
void register_results_command(CLI::App& app);

}  // namespace cs::cli
