#include "sim/cli/cmd_sweep.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "sim/api/clustersim.hpp"

namespace cs::cli {

namespace {
struct SweepArgs {
  api::SweepJob job;
  std::string shard;
};

std::pair<int, int> parse_shard(const std::string& s) {
  int i = -1, n = 0;
  char slash = 0, extra = 0;
  if (std::sscanf(s.c_str(), "%d%c%d%c", &i, &slash, &n, &extra) != 3 || slash != '/' || n < 1 || i < 0 || i >= n) {
    throw InputError({}, "--shard", "'" + s + "' is not I/N with 0 <= I < N");
  }
  return {i, n};
}
}  // namespace

void register_sweep_command(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  CLI::App* cmd = app.add_subcommand("sweep", "Run every point of a sweep file into a results database (docs/sweeps.md)");
  cmd->add_option("sweep", a->job.sweep, "Sweep file (YAML: base scenario and axes)")->required();
  cmd->add_option("--db", a->job.db, "Results database (SQLite; created when absent; rerun to fill in what is missing)")
      ->type_name("FILE");
  cmd->add_option("-j,--jobs", a->job.jobs, "Worker threads (default: all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--shard", a->shard, "Evaluate only slice I of N (round-robin over the points), 0 <= I < N")
      ->type_name("I/N");
  cmd->add_option("--sbatch", a->job.sbatch, "Write a Slurm job-array script for the sweep to FILE instead of running")
      ->type_name("FILE");
  cmd->add_option("--tasks", a->job.sbatch_tasks, "Array tasks of the --sbatch script")->check(CLI::PositiveNumber);
  cmd->add_option("--search-top", a->job.search_top, "Plans replayed per `parallelism: search` point (best kept)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--check", a->job.check_only, "Only check the sweep file and load every point; run nothing");
  cmd->callback([a] {
    api::SweepJob job = a->job;
    // A shard matters only to a run (not to --check or --sbatch), so it is read only for one.
    if (!a->shard.empty() && !job.check_only && job.sbatch.empty()) {
      std::tie(job.shard, job.shards) = parse_shard(a->shard);
    }
    if (!job.sbatch.empty()) job.executable = std::filesystem::read_symlink("/proc/self/exe").string();
    job.progress_bar = isatty(STDERR_FILENO) != 0;
    (void)api::run_sweep(job, std::cout, std::cerr);
  });
}

}  // namespace cs::cli
