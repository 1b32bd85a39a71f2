// Sweeps through the API: every point of a sweep file into a results database (`clustersim sweep`: threads,
// MPI ranks, shards, a Slurm array script), or evaluated in this process without one (Python, tests).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <iosfwd>
#include <string>

namespace cs::api {

/// One `clustersim sweep`: which points, where their rows go, on how many threads.
struct SweepJob {
  std::string sweep;          ///< the sweep file
  std::string db;             ///< the results database (created when absent); required unless check_only
  int jobs = 0;               ///< worker threads (0: all cores)
  int shard = 0;              ///< with shards > 0: evaluate only slice `shard` of `shards` (round-robin)
  int shards = 0;             ///< 0: not sharded
  int search_top = 3;         ///< plans replayed per `parallelism: search` point (the best is kept)
  bool check_only = false;    ///< check the file and load every point; run nothing
  std::string sbatch;         ///< write a Slurm job-array script here instead of running
  int sbatch_tasks = 4;       ///< array tasks of that script
  std::string executable;     ///< the clustersim binary the script runs (an absolute path)
  bool progress_bar = false;  ///< redraw a progress bar on `log` (a terminal) instead of plain lines
};

/// What this process did.
struct SweepTotals {
  std::size_t points = 0;     ///< points of the sweep file
  std::size_t evaluated = 0;  ///< evaluated by this process (this rank, this shard)
  std::size_t failed = 0;     ///< of those, stored as failed rows with their reason
  double wall_s = 0;
};

/// Runs `job`. Everything is checked before anything runs: the sweep file, its base scenario, every point.
/// Under an MPI launcher every rank evaluates its slice of the points the database lacks into a shard of its
/// own and rank 0 merges them. Progress goes to `log`, the one-line summary to `out`. Rows already in the
/// database are kept, so a rerun evaluates only what is missing. Throws InputError for bad input.
SweepTotals run_sweep(const SweepJob& job, std::ostream& out, std::ostream& log);

/// Every point of a sweep file evaluated in this process (`jobs` threads; 0: all cores), in point order, each as
/// {index, label, axes, status, reason, result (run's JSON), plan}: what `clustersim sweep` stores in its
/// database, without one. Throws InputError for a bad sweep file or a point that does not load.
[[nodiscard]] nlohmann::ordered_json sweep(const std::string& path, int jobs = 0);

}  // namespace cs::api
