// `clustersim collective`: nccl-tests-style sweep of one collective over message sizes on a topology, printing
// time, algorithm bandwidth and bus bandwidth per size (docs/network.md).
#pragma once

#include <CLI/CLI.hpp>

namespace cs::cli {

/// `clustersim collective [-t TOPOLOGY] [-g GPUS] [-o OP] [-a ALGO] [-b MIN] [-e MAX] [-f FACTOR]
/// [--backend flow|analytic] [--calibration datasheet|ideal|FILE.csv] [--group-size N] [--report]`.
/// Errors surface as cs::InputError (exit status 2 in main).
void register_collective_command(CLI::App& app);

}  // namespace cs::cli
