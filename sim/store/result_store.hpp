// The results database of sweeps and plan searches: one row per evaluated scenario point, keyed by the
// content hash of its canonical expanded scenario, so a point is stored at most once however often a sweep
// is rerun, resumed after a crash, sharded or merged. Schema (version 1, in PRAGMA user_version; PRAGMA
// application_id 0x43535231 "CSR1" marks the file as a clustersim results database):
//
//   points(hash PRIMARY KEY, sweep, point_index, label, axes (JSON), scenario_yaml, clustersim_version,
//          profile, profile_source, status ('ok' | 'failed'), reason, result (JSON of `clustersim run --json`,
//          null when the point failed before a result), plan (the searched plan, JSON, or null),
//          eval_s, created_at)
//
// The file runs in WAL mode; every add() is one transaction (a batch of points lands whole or not at all),
// so a process killed at any moment leaves a consistent database. Opening refuses, with an InputError and
// without writing anything, a file that is not SQLite, a SQLite file of another application (the calibration
// database included), a newer schema, or one that fails SQLite's quick check.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

struct sqlite3;

namespace cs {

struct ResultRow {
  std::string hash;                ///< FNV-1a 64 of scenario_yaml, 16 hex digits
  std::string sweep;               ///< the sweep's name
  std::int64_t point_index = 0;    ///< position in the sweep's expansion
  std::string label;               ///< "key=value, ..." of the point's axis values
  std::string axes = "{}";         ///< the same as a JSON object
  std::string scenario_yaml;       ///< the canonical expanded scenario
  std::string clustersim_version;
  std::string profile;             ///< device profile name
  std::string profile_source;      ///< "datasheet" or "measured"
  std::string status = "ok";       ///< "ok" or "failed"
  std::string reason;              ///< why it failed; empty when ok
  std::optional<std::string> result;  ///< JSON result
  std::optional<std::string> plan;    ///< JSON of the plan a search chose
  double eval_s = 0;               ///< wall time of the evaluation (not part of a row's identity)
  std::string created_at;          ///< UTC, ISO 8601 (not part of a row's identity)

  /// Equal in everything but the wall time and the timestamp.
  [[nodiscard]] bool same_content(const ResultRow& o) const;
};

class ResultStore {
 public:
  static constexpr int kSchemaVersion = 1;
  static constexpr int kApplicationId = 0x43535231;  // "CSR1"

  enum class Mode { read_write, read_only };
  /// Opens `path`; read_write creates it when absent. Throws InputError as described above.
  [[nodiscard]] static ResultStore open(const std::string& path, Mode mode = Mode::read_write);
  ~ResultStore();
  ResultStore(ResultStore&&) noexcept;
  ResultStore& operator=(ResultStore&&) noexcept;
  ResultStore(const ResultStore&) = delete;
  ResultStore& operator=(const ResultStore&) = delete;

  /// Inserts the rows in one transaction; a row whose hash is already stored is skipped. Returns how many
  /// were new.
  int add(const std::vector<ResultRow>& rows);
  /// The hashes already stored.
  [[nodiscard]] std::set<std::string> hashes() const;
  /// Every row, ordered by (sweep, point_index, hash).
  [[nodiscard]] std::vector<ResultRow> rows() const;
  /// PRAGMA integrity_check's answer ("ok" when sound).
  [[nodiscard]] std::string integrity_check() const;
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  ResultStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_ = nullptr;
  std::string path_;
};

}  // namespace cs
