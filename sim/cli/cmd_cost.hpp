#pragma once

#include <CLI/CLI.hpp>

namespace cs::cli {

/// `clustersim cost --profile P --csv SHAPES.csv`: predicted kernel times of GEMM shapes (op,dtype,m,n,k) as
/// CSV on standard output, with a `predicted_s` column and a `# profile:` line naming the profile's source.
void register_cost_command(CLI::App& app);

}  // namespace cs::cli
