#include "sim/cli/cmd_sweep.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "sim/core/atomic_file.hpp"
#include "sim/sweep/mpi_session.hpp"
#include "sim/sweep/progress_meter.hpp"
#include "sim/sweep/result_merge.hpp"
#include "sim/sweep/sbatch_script.hpp"
#include "sim/sweep/sweep_point.hpp"
#include "sim/sweep/sweep_runner.hpp"

namespace cs::cli {

namespace {
struct SweepArgs {
  std::string sweep;
  std::string db;
  int jobs = 0;
  std::string shard;
  std::string sbatch;
  int tasks = 4;
  int search_top = 3;
  bool check_only = false;
};

std::pair<int, int> parse_shard(const std::string& s) {
  int i = -1, n = 0;
  char slash = 0, extra = 0;
  if (std::sscanf(s.c_str(), "%d%c%d%c", &i, &slash, &n, &extra) != 3 || slash != '/' || n < 1 || i < 0 || i >= n) {
    throw InputError({}, "--shard", "'" + s + "' is not I/N with 0 <= I < N");
  }
  return {i, n};
}

std::string absolute(const std::string& p) { return std::filesystem::absolute(p).lexically_normal().string(); }

/// Evaluates `todo` into `db`, with progress on standard error.
SweepRunSummary run_into(const SweepSpec& spec, const std::vector<SweepPoint>& points, const std::string& db,
                         const SweepArgs& a, int jobs, const std::string& who) {
  ResultStore store = ResultStore::open(db);
  const std::vector<SweepPoint> todo = missing_points(points, store);
  std::cerr << fmt::format("{}{} of {} points already in {}; evaluating {} on {} thread{}\n", who,
                           points.size() - todo.size(), points.size(), db, todo.size(), jobs, jobs == 1 ? "" : "s");
  ProgressMeter meter(std::cerr, isatty(STDERR_FILENO) != 0 && who.empty());
  SweepRunOptions opt;
  opt.jobs = jobs;
  opt.eval.search_top = a.search_top;
  opt.progress = [&](const SweepProgress& p) { meter.update(p); };
  const SweepRunSummary sum = run_sweep(spec, todo, store, opt);
  meter.finish();
  return sum;
}
}  // namespace

void register_sweep_command(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  CLI::App* cmd = app.add_subcommand("sweep", "Run every point of a sweep file into a results database (docs/sweeps.md)");
  cmd->add_option("sweep", a->sweep, "Sweep file (YAML: base scenario and axes)")->required();
  cmd->add_option("--db", a->db, "Results database (SQLite; created when absent; rerun to fill in what is missing)")
      ->type_name("FILE");
  cmd->add_option("-j,--jobs", a->jobs, "Worker threads (default: all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--shard", a->shard, "Evaluate only slice I of N (round-robin over the points), 0 <= I < N")
      ->type_name("I/N");
  cmd->add_option("--sbatch", a->sbatch, "Write a Slurm job-array script for the sweep to FILE instead of running")
      ->type_name("FILE");
  cmd->add_option("--tasks", a->tasks, "Array tasks of the --sbatch script")->check(CLI::PositiveNumber);
  cmd->add_option("--search-top", a->search_top, "Plans replayed per `parallelism: search` point (best kept)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--check", a->check_only, "Only check the sweep file and load every point; run nothing");
  cmd->callback([a] {
    const MpiSession mpi;  // initialises MPI only under an MPI launcher
    const std::string who = mpi.active() ? fmt::format("rank {}/{}: ", mpi.rank(), mpi.size()) : "";

    // Everything is checked before anything runs: the sweep file, the base scenario, every point.
    const SweepSpec spec = load_sweep(a->sweep);
    check_sweep_keys(spec, scenario_key_check());
    (void)load_searchable_scenario_file(spec.base_path);
    const std::vector<SweepPoint> points = expand_sweep(spec);
    const int jobs = a->jobs > 0 ? a->jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    check_all_points(spec, points, jobs);
    if (a->check_only) {
      if (mpi.rank() == 0) std::cout << fmt::format("{}: {} points, all load\n", a->sweep, points.size());
      return;
    }
    if (a->db.empty()) throw InputError({}, "--db", "a results database is required (--db FILE)");

    if (!a->sbatch.empty()) {
      SbatchOptions o;
      o.clustersim = std::filesystem::read_symlink("/proc/self/exe").string();
      o.sweep = absolute(a->sweep);
      o.db = absolute(a->db);
      o.tasks = a->tasks;
      o.cpus_per_task = jobs;
      write_file_atomically(a->sbatch, sbatch_script(o));
      std::cout << fmt::format("wrote {}: {} array tasks over {} points; submit with: sbatch {}\n", a->sbatch,
                               a->tasks, points.size(), a->sbatch);
      return;
    }

    auto [shard, shards] = a->shard.empty() ? std::pair{0, 1} : parse_shard(a->shard);
    if (mpi.active()) {
      if (!a->shard.empty()) throw InputError({}, "--shard", "not with mpirun (the ranks are the shards)");
      // Rank 0 checks (or creates) the database before any rank works; a refused one stops every rank.
      bool ok = true;
      std::string why;
      if (mpi.rank() == 0) {
        try {
          (void)ResultStore::open(a->db);
        } catch (const InputError& e) {
          ok = false;
          why = e.what();
        }
      }
      if (!mpi.all(ok)) throw InputError({a->db, 0, 0}, "", why.empty() ? "refused by rank 0" : why);
      // Each rank evaluates its slice of what the database lacks into its own shard; rank 0 merges them.
      const std::vector<SweepPoint> lacking = missing_points(points, ResultStore::open(a->db, ResultStore::Mode::read_only));
      const std::string mine = shard_database(a->db, mpi.rank(), mpi.size());
      const SweepRunSummary sum = run_into(spec, shard_points(lacking, mpi.rank(), mpi.size()), mine, *a, jobs, who);
      std::cerr << fmt::format("{}evaluated {} points ({} failed) in {:.1f} s\n", who, sum.evaluated, sum.failed, sum.wall_s);
      mpi.barrier();
      if (mpi.rank() == 0) {
        std::vector<std::string> parts;
        for (int r = 0; r < mpi.size(); ++r) parts.push_back(shard_database(a->db, r, mpi.size()));
        const MergeSummary merged = merge_results(a->db, parts);
        for (const auto& p : parts) remove_database(p);
        std::cout << fmt::format("sweep {}: {} points; {} new rows from {} ranks merged into {}\n", spec.name,
                                 points.size(), merged.rows_added, mpi.size(), a->db);
      }
      mpi.barrier();
      return;
    }
    const std::vector<SweepPoint> mine = shard_points(points, shard, shards);
    const SweepRunSummary sum = run_into(spec, mine, a->db, *a, jobs, "");
    std::cout << fmt::format("sweep {}: {} points{}; evaluated {} ({} failed) in {:.1f} s; results in {}\n", spec.name,
                             points.size(), shards > 1 ? fmt::format(" ({} in shard {}/{})", mine.size(), shard, shards) : "",
                             sum.evaluated, sum.failed, sum.wall_s, a->db);
  });
}

}  // namespace cs::cli
