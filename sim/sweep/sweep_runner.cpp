#include "sim/sweep/sweep_runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace cs {

std::vector<SweepPoint> shard_points(const std::vector<SweepPoint>& points, int index, int count) {
  std::vector<SweepPoint> out;
  for (const SweepPoint& p : points) {
    if (p.index % count == index) out.push_back(p);
  }
  return out;
}

std::vector<SweepPoint> missing_points(const std::vector<SweepPoint>& points, const ResultStore& store) {
  const auto have = store.hashes();
  std::vector<SweepPoint> out;
  for (const SweepPoint& p : points) {
    if (!have.contains(p.hash)) out.push_back(p);
  }
  return out;
}

SweepRunSummary run_sweep(const SweepSpec& spec, const std::vector<SweepPoint>& todo, ResultStore& store,
                          const SweepRunOptions& opt) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  SweepRunSummary sum;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<ResultRow> finished;  // guarded by mu
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};

  const auto work = [&] {
    while (!stop) {
      const std::size_t i = next++;
      if (i >= todo.size()) return;
      ResultRow row = evaluate_point(spec, todo[i], opt.eval);
      {
        const std::lock_guard lock(mu);
        finished.push_back(std::move(row));
      }
      cv.notify_one();
    }
  };
  const int jobs = std::max(1, std::min<int>(opt.jobs, static_cast<int>(todo.size())));
  std::vector<std::jthread> workers;
  for (int j = 0; j < jobs && !todo.empty(); ++j) workers.emplace_back(work);

  SweepProgress progress{0, 0, todo.size(), 0};
  auto last_commit = Clock::now();
  std::vector<ResultRow> pending;
  try {
    while (progress.done < todo.size()) {
      {
        std::unique_lock lock(mu);
        cv.wait_for(lock, std::chrono::milliseconds(200), [&] { return !finished.empty(); });
        for (auto& r : finished) pending.push_back(std::move(r));
        finished.clear();
      }
      const bool all_in = progress.done + pending.size() == todo.size();
      if (!pending.empty() && (all_in || pending.size() >= opt.batch_points ||
                               std::chrono::duration<double>(Clock::now() - last_commit).count() >= opt.batch_seconds)) {
        sum.stored += static_cast<std::size_t>(store.add(pending));
        for (const auto& r : pending) progress.failed += r.status == "failed" ? 1 : 0;
        progress.done += pending.size();
        pending.clear();
        last_commit = Clock::now();
      }
      progress.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
      if (opt.progress) opt.progress(progress);
    }
  } catch (...) {
    stop = true;
    throw;  // the jthreads join on the way out; the database holds every batch committed so far
  }
  sum.evaluated = progress.done;
  sum.failed = progress.failed;
  sum.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  return sum;
}

}  // namespace cs
