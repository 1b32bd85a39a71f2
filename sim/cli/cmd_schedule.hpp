// `clustersim schedule FILE.yaml [--json OUT|-] [--trace OUT] [--set KEY=VALUE]...`: a shared cluster over time
// (docs/schedule.md).
#pragma once

#include <CLI/CLI.hpp>

namespace cs::cli {

void register_schedule_command(CLI::App& app);

}  // namespace cs::cli
