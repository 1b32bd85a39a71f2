// The calibration database: raw samples and fitted models in one SQLite file, with the provenance of every
// run. Schema (version 1, in PRAGMA user_version; PRAGMA application_id marks the file as ours):
//
//   runs(id, gpu, sm_count, memory_bytes, sm_clock_mhz, mem_clock_mhz, driver, cuda, cublas, nccl, host,
//        date, tool, extra, imported_at)
//   samples(id, run_id -> runs, kind, op, dtype, m, n, k, batch, heads, seq, head_dim, bytes, ranks, algo,
//           median_s, p10_s, p90_s, reps, watts)
//   fits(id, run_id -> runs, created_at, profile_name, model, stats, profile_yaml)
//
// Opening refuses, with a StoreError that says why, a file that is not SQLite, a SQLite file of another
// application, a newer schema, or one that fails SQLite's integrity check. Every write is one transaction:
// a run and all its samples land together or not at all, so re-running appends and never half-writes.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/store/calibration_sample.hpp"
#include "sim/store/store_error.hpp"

struct sqlite3;

namespace cs {

struct StoredRun {
  std::int64_t id = 0;
  CalibrationRun run;
  std::string imported_at;
  std::int64_t sample_count = 0;
};

struct StoredFit {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  std::string created_at;
  std::string profile_name;
  std::string model;         ///< what was fitted, e.g. "gemm+attention+memory+collectives"
  std::string stats;         ///< residual and holdout errors, one "key=value" per line
  std::string profile_yaml;  ///< the exported profile, verbatim
};

class CalibrationStore {
 public:
  static constexpr int kSchemaVersion = 2;  ///< 2 added the samples' layout, clocks and NVML columns
  static constexpr int kApplicationId = 0x43534331;  // "CSC1"

  /// Opens (creating when absent) the database at `path`. Throws StoreError as described above.
  [[nodiscard]] static CalibrationStore open(const std::string& path);
  ~CalibrationStore();
  CalibrationStore(CalibrationStore&&) noexcept;
  CalibrationStore& operator=(CalibrationStore&&) noexcept;
  CalibrationStore(const CalibrationStore&) = delete;
  CalibrationStore& operator=(const CalibrationStore&) = delete;

  /// Appends a run and its samples in one transaction; returns the run id.
  std::int64_t add_run(const CalibrationRun& run, const std::vector<CalibrationSample>& samples);
  /// Appends a fit of run `run_id`; returns its id.
  std::int64_t add_fit(const StoredFit& fit);

  [[nodiscard]] std::vector<StoredRun> runs() const;
  [[nodiscard]] std::vector<CalibrationSample> samples(std::int64_t run_id) const;
  [[nodiscard]] std::vector<StoredFit> fits(std::int64_t run_id) const;
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  CalibrationStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  void exec(const char* sql) const;
  sqlite3* db_ = nullptr;
  std::string path_;
};

}  // namespace cs
