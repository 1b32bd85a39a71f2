#include "sim/api/sweep_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <ostream>
#include <thread>
#include <utility>
#include <vector>

#include "sim/core/atomic_file.hpp"
#include "sim/search/search_scenario.hpp"
#include "sim/sweep/mpi_session.hpp"
#include "sim/sweep/progress_meter.hpp"
#include "sim/sweep/result_merge.hpp"
#include "sim/sweep/sbatch_script.hpp"
#include "sim/sweep/sweep_point.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace cs::api {

namespace {

int threads_for(int jobs) {
  return jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

/// A sweep file with every point checked: the file, its keys, its base scenario and each point loaded.
struct CheckedSweep {
  SweepSpec spec;
  std::vector<SweepPoint> points;
};

CheckedSweep check_sweep(const std::string& path, int threads) {
  CheckedSweep c{.spec = load_sweep(path), .points = {}};
  check_sweep_keys(c.spec, base_key_check(c.spec));
  if (c.spec.schedule) {
    (void)load_schedule_file(c.spec.base_path);
  } else {
    (void)load_searchable_scenario_file(c.spec.base_path);
  }
  c.points = expand_sweep(c.spec);
  check_all_points(c.spec, c.points, threads);
  return c;
}

std::string absolute(const std::string& p) { return std::filesystem::absolute(p).lexically_normal().string(); }

/// Evaluates what `db` lacks of `points` into it, with progress on `log`.
SweepRunSummary run_into(const SweepSpec& spec, const std::vector<SweepPoint>& points, const std::string& db,
                         const SweepJob& job, int threads, const std::string& who, std::ostream& log) {
  ResultStore store = ResultStore::open(db);
  const std::vector<SweepPoint> todo = missing_points(points, store);
  log << fmt::format("{}{} of {} points already in {}; evaluating {} on {} thread{}\n", who,
                     points.size() - todo.size(), points.size(), db, todo.size(), threads, threads == 1 ? "" : "s");
  ProgressMeter meter(log, job.progress_bar && who.empty());
  SweepRunOptions opt;
  opt.jobs = threads;
  opt.eval.search_top = job.search_top;
  opt.progress = [&](const SweepProgress& p) { meter.update(p); };
  const SweepRunSummary sum = cs::run_sweep(spec, todo, store, opt);
  meter.finish();
  return sum;
}

/// Every rank evaluates its slice of what the database lacks into its own shard; rank 0 merges them.
SweepTotals run_on_ranks(const MpiSession& mpi, const CheckedSweep& c, const SweepJob& job, int threads,
                         std::ostream& out, std::ostream& log) {
  const std::string who = fmt::format("rank {}/{}: ", mpi.rank(), mpi.size());
  if (job.shards > 0) throw InputError({}, "--shard", "not with mpirun (the ranks are the shards)");
  // Rank 0 checks (or creates) the database before any rank works; a refused one stops every rank.
  bool ok = true;
  std::string why;
  if (mpi.rank() == 0) {
    try {
      (void)ResultStore::open(job.db);
    } catch (const InputError& e) {
      ok = false;
      why = e.what();
    }
  }
  if (!mpi.all(ok)) throw InputError({job.db, 0, 0}, "", why.empty() ? "refused by rank 0" : why);
  const std::vector<SweepPoint> lacking =
      missing_points(c.points, ResultStore::open(job.db, ResultStore::Mode::read_only));
  const std::string mine = shard_database(job.db, mpi.rank(), mpi.size());
  const SweepRunSummary sum =
      run_into(c.spec, shard_points(lacking, mpi.rank(), mpi.size()), mine, job, threads, who, log);
  log << fmt::format("{}evaluated {} points ({} failed) in {:.1f} s\n", who, sum.evaluated, sum.failed, sum.wall_s);
  mpi.barrier();
  if (mpi.rank() == 0) {
    std::vector<std::string> parts;
    for (int r = 0; r < mpi.size(); ++r) parts.push_back(shard_database(job.db, r, mpi.size()));
    const MergeSummary merged = cs::merge_results(job.db, parts);
    for (const auto& p : parts) remove_database(p);
    out << fmt::format("sweep {}: {} points; {} new rows from {} ranks merged into {}\n", c.spec.name,
                       c.points.size(), merged.rows_added, mpi.size(), job.db);
  }
  mpi.barrier();
  return {.points = c.points.size(), .evaluated = sum.evaluated, .failed = sum.failed, .wall_s = sum.wall_s};
}

}  // namespace

SweepTotals run_sweep(const SweepJob& job, std::ostream& out, std::ostream& log) {
  const MpiSession mpi;  // initialises MPI only under an MPI launcher
  const int threads = threads_for(job.jobs);
  const CheckedSweep c = check_sweep(job.sweep, threads);
  if (job.check_only) {
    if (mpi.rank() == 0) out << fmt::format("{}: {} points, all load\n", job.sweep, c.points.size());
    return {.points = c.points.size(), .evaluated = 0, .failed = 0, .wall_s = 0};
  }
  if (job.db.empty()) throw InputError({}, "--db", "a results database is required (--db FILE)");
  if (!job.sbatch.empty()) {
    SbatchOptions o;
    o.clustersim = job.executable;
    o.sweep = absolute(job.sweep);
    o.db = absolute(job.db);
    o.tasks = job.sbatch_tasks;
    o.cpus_per_task = threads;
    write_file_atomically(job.sbatch, sbatch_script(o));
    out << fmt::format("wrote {}: {} array tasks over {} points; submit with: sbatch {}\n", job.sbatch,
                       job.sbatch_tasks, c.points.size(), job.sbatch);
    return {.points = c.points.size(), .evaluated = 0, .failed = 0, .wall_s = 0};
  }
  if (mpi.active()) return run_on_ranks(mpi, c, job, threads, out, log);
  const int shards = std::max(job.shards, 1);
  const std::vector<SweepPoint> mine = shard_points(c.points, job.shard, shards);
  const SweepRunSummary sum = run_into(c.spec, mine, job.db, job, threads, "", log);
  out << fmt::format("sweep {}: {} points{}; evaluated {} ({} failed) in {:.1f} s; results in {}\n", c.spec.name,
                     c.points.size(),
                     shards > 1 ? fmt::format(" ({} in shard {}/{})", mine.size(), job.shard, shards) : "",
                     sum.evaluated, sum.failed, sum.wall_s, job.db);
  return {.points = c.points.size(), .evaluated = sum.evaluated, .failed = sum.failed, .wall_s = sum.wall_s};
}

nlohmann::ordered_json sweep(const std::string& path, int jobs) {
  const int threads = threads_for(jobs);
  const CheckedSweep c = check_sweep(path, threads);
  std::vector<ResultRow> rows(c.points.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < c.points.size(); i = next++) rows[i] = evaluate_point(c.spec, c.points[i], {});
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const ResultRow& r : rows) {
    nlohmann::ordered_json e{{"index", r.point_index}, {"label", r.label},
                             {"axes", nlohmann::ordered_json::parse(r.axes)}, {"status", r.status},
                             {"reason", r.reason}};
    e["result"] = r.result ? nlohmann::ordered_json::parse(*r.result) : nlohmann::ordered_json();
    e["plan"] = r.plan ? nlohmann::ordered_json::parse(*r.plan) : nlohmann::ordered_json();
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace cs::api
