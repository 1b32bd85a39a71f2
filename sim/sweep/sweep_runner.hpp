// Runs the points of a sweep that the results database does not hold yet, on a pool of worker threads.
// Each worker loads its own Scenario per point (nothing mutable is shared between points); only the calling
// thread touches the database, committing finished rows in batches (one transaction each), so a crash loses
// at most the batch in flight and a rerun evaluates exactly what is missing.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "sim/store/result_store.hpp"
#include "sim/sweep/point_evaluator.hpp"

namespace cs {

struct SweepProgress {
  std::size_t done = 0;      ///< points evaluated in this run
  std::size_t failed = 0;
  std::size_t total = 0;     ///< points this run evaluates
  double elapsed_s = 0;
};

struct SweepRunOptions {
  int jobs = 1;                   ///< worker threads
  PointEvalOptions eval;
  double batch_seconds = 1.0;     ///< commit at least this often while points finish
  std::size_t batch_points = 64;  ///< or when this many rows wait
  std::function<void(const SweepProgress&)> progress;  ///< called on the calling thread
};

struct SweepRunSummary {
  std::size_t evaluated = 0;
  std::size_t failed = 0;
  std::size_t stored = 0;        ///< rows new to the database
  double wall_s = 0;
};

/// The points of shard `index` of `count` (round-robin by point index, 0 <= index < count).
[[nodiscard]] std::vector<SweepPoint> shard_points(const std::vector<SweepPoint>& points, int index, int count);
/// The points whose hash `store` does not hold.
[[nodiscard]] std::vector<SweepPoint> missing_points(const std::vector<SweepPoint>& points, const ResultStore& store);

/// Evaluates `todo` and stores every row in `store`.
SweepRunSummary run_sweep(const SweepSpec& spec, const std::vector<SweepPoint>& todo, ResultStore& store,
                          const SweepRunOptions& opt);

}  // namespace cs
