#pragma once

#include <CLI/CLI.hpp>

namespace cs::cli {

/// `clustersim sweep SWEEP.yaml --db results.sqlite [-j N] [--shard I/N] [--sbatch FILE --tasks N]
/// [--search-top K] [--check]`; under `mpirun -np N` the points are split over the ranks.
void register_sweep_command(CLI::App& app);

}  // namespace cs::cli
