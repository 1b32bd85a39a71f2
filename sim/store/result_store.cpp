#include "sim/store/result_store.hpp"

#include <sqlite3.h>

#include <filesystem>
#include <utility>

#include "sim/core/error.hpp"
#include "sim/store/sqlite_statement.hpp"

namespace cs {
namespace {

constexpr const char* kResultSchema = R"sql(
CREATE TABLE points(
  hash TEXT PRIMARY KEY, sweep TEXT NOT NULL, point_index INTEGER NOT NULL, label TEXT NOT NULL,
  axes TEXT NOT NULL, scenario_yaml TEXT NOT NULL, clustersim_version TEXT NOT NULL, profile TEXT NOT NULL,
  profile_source TEXT NOT NULL, status TEXT NOT NULL CHECK(status IN ('ok', 'failed')), reason TEXT NOT NULL,
  result TEXT, plan TEXT, eval_s REAL NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX points_by_sweep ON points(sweep, point_index);
)sql";

constexpr int kCalibrationApplicationId = 0x43534331;  // CalibrationStore's "CSC1"

}  // namespace

bool ResultRow::same_content(const ResultRow& o) const {
  return hash == o.hash && sweep == o.sweep && point_index == o.point_index && label == o.label && axes == o.axes &&
         scenario_yaml == o.scenario_yaml && clustersim_version == o.clustersim_version && profile == o.profile &&
         profile_source == o.profile_source && status == o.status && reason == o.reason && result == o.result &&
         plan == o.plan;
}

ResultStore ResultStore::open(const std::string& path, Mode mode) {
  const auto refuse = [&](const std::string& why) -> void { throw InputError({path, 0, 0}, "", why); };
  const bool existed = std::filesystem::exists(path);
  if (mode == Mode::read_only && !existed) refuse("no such results database");
  if (existed && std::filesystem::is_directory(path)) refuse("is a directory, not a results database");
  sqlite3* db = nullptr;
  const int flags = mode == Mode::read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    const std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    refuse("cannot open results database: " + msg);
  }
  ResultStore store(db, path);
  sqlite3_busy_timeout(db, 10000);
  std::int64_t app = 0, version = 0, tables = 0;
  try {
    // Reading the header is the first thing that fails on a file that is not SQLite ("file is not a database").
    app = sql::pragma_int(db, "PRAGMA application_id");
    version = sql::pragma_int(db, "PRAGMA user_version");
    tables = sql::pragma_int(db, "SELECT count(*) FROM sqlite_master");
  } catch (const sql::SqlError& e) {
    refuse(std::string("not a clustersim results database (") + e.what() + ")");
  }
  // Nothing below writes to the file until it is known to be ours (or new and empty).
  if (app == kCalibrationApplicationId) refuse("a clustersim calibration database, not a results database");
  if (app != 0 && app != kApplicationId) refuse("a SQLite database of another application, not a clustersim results database");
  if (tables > 0 || app == kApplicationId) {
    if (app != kApplicationId) refuse("a SQLite database of another application, not a clustersim results database");
    if (version > kSchemaVersion) {
      refuse("results schema version " + std::to_string(version) + " is newer than this build reads (" +
             std::to_string(kSchemaVersion) + ")");
    }
    if (version < 1) refuse("results database without a schema version");
    sql::Statement check(db, "PRAGMA quick_check");
    const std::string result = check.step() ? check.text(0) : "no answer";
    if (result != "ok") refuse("damaged results database (integrity check: " + result + ")");
    if (mode == Mode::read_write) sql::exec(db, "PRAGMA journal_mode = WAL");
  } else {
    if (mode == Mode::read_only) refuse("an empty file, not a clustersim results database");
    sql::exec(db, "PRAGMA journal_mode = WAL");
    sql::Transaction tx(db);
    sql::exec(db, kResultSchema);
    sql::exec(db, "PRAGMA application_id = " + std::to_string(kApplicationId));
    sql::exec(db, "PRAGMA user_version = " + std::to_string(kSchemaVersion));
    tx.commit();
  }
  return store;
}

ResultStore::~ResultStore() {
  if (db_) sqlite3_close(db_);
}
ResultStore::ResultStore(ResultStore&& o) noexcept : db_(std::exchange(o.db_, nullptr)), path_(std::move(o.path_)) {}
ResultStore& ResultStore::operator=(ResultStore&& o) noexcept {
  if (this != &o) {
    if (db_) sqlite3_close(db_);
    db_ = std::exchange(o.db_, nullptr);
    path_ = std::move(o.path_);
  }
  return *this;
}

int ResultStore::add(const std::vector<ResultRow>& rows) {
  if (rows.empty()) return 0;
  sql::Transaction tx(db_);
  sql::Statement st(db_,
                    "INSERT OR IGNORE INTO points(hash, sweep, point_index, label, axes, scenario_yaml, "
                    "clustersim_version, profile, profile_source, status, reason, result, plan, eval_s, created_at) "
                    "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  int added = 0;
  for (const ResultRow& r : rows) {
    st.reset();
    st.bind(1, r.hash).bind(2, r.sweep).bind(3, r.point_index).bind(4, r.label).bind(5, r.axes);
    st.bind(6, r.scenario_yaml).bind(7, r.clustersim_version).bind(8, r.profile).bind(9, r.profile_source);
    st.bind(10, r.status).bind(11, r.reason);
    if (r.result) st.bind(12, *r.result);
    if (r.plan) st.bind(13, *r.plan);
    st.bind(14, r.eval_s).bind(15, r.created_at);
    st.step();
    added += sqlite3_changes(db_);
  }
  tx.commit();
  return added;
}

std::set<std::string> ResultStore::hashes() const {
  std::set<std::string> out;
  sql::Statement st(db_, "SELECT hash FROM points");
  while (st.step()) out.insert(st.text(0));
  return out;
}

std::vector<ResultRow> ResultStore::rows() const {
  std::vector<ResultRow> out;
  sql::Statement st(db_,
                    "SELECT hash, sweep, point_index, label, axes, scenario_yaml, clustersim_version, profile, "
                    "profile_source, status, reason, result, plan, eval_s, created_at FROM points "
                    "ORDER BY sweep, point_index, hash");
  while (st.step()) {
    ResultRow r;
    r.hash = st.text(0);
    r.sweep = st.text(1);
    r.point_index = st.integer(2);
    r.label = st.text(3);
    r.axes = st.text(4);
    r.scenario_yaml = st.text(5);
    r.clustersim_version = st.text(6);
    r.profile = st.text(7);
    r.profile_source = st.text(8);
    r.status = st.text(9);
    r.reason = st.text(10);
    if (!st.is_null(11)) r.result = st.text(11);
    if (!st.is_null(12)) r.plan = st.text(12);
    r.eval_s = st.real(13);
    r.created_at = st.text(14);
    out.push_back(std::move(r));
  }
  return out;
}

std::string ResultStore::integrity_check() const {
  sql::Statement st(db_, "PRAGMA integrity_check");
  return st.step() ? st.text(0) : "no answer";
}

}  // namespace cs
