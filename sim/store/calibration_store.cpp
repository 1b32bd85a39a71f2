#include "sim/store/calibration_store.hpp"

#include <sqlite3.h>

#include <ctime>
#include <map>
#include <filesystem>
#include <utility>

#include "sim/store/sqlite_statement.hpp"

namespace cs {
namespace {

constexpr const char* kCalibrationSchema = R"sql(
CREATE TABLE runs(
  id INTEGER PRIMARY KEY, gpu TEXT NOT NULL, sm_count INTEGER NOT NULL, memory_bytes REAL NOT NULL,
  sm_clock_mhz INTEGER NOT NULL, mem_clock_mhz INTEGER NOT NULL, driver TEXT NOT NULL, cuda TEXT NOT NULL,
  cublas TEXT NOT NULL, nccl TEXT NOT NULL, host TEXT NOT NULL, date TEXT NOT NULL, tool TEXT NOT NULL,
  extra TEXT NOT NULL, imported_at TEXT NOT NULL);
CREATE TABLE samples(
  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), kind TEXT NOT NULL, op TEXT NOT NULL,
  dtype TEXT NOT NULL, m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL, batch INTEGER NOT NULL,
  heads INTEGER NOT NULL, seq INTEGER NOT NULL, head_dim INTEGER NOT NULL, bytes REAL NOT NULL,
  ranks INTEGER NOT NULL, algo TEXT NOT NULL, median_s REAL NOT NULL, p10_s REAL NOT NULL, p90_s REAL NOT NULL,
  reps INTEGER NOT NULL, watts REAL NOT NULL, layout TEXT NOT NULL DEFAULT '', clocks TEXT NOT NULL DEFAULT '',
  sm_mhz REAL NOT NULL DEFAULT 0, temp_c REAL NOT NULL DEFAULT 0, throttle INTEGER NOT NULL DEFAULT 0);
CREATE INDEX samples_by_run ON samples(run_id, kind);
CREATE TABLE fits(
  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), created_at TEXT NOT NULL,
  profile_name TEXT NOT NULL, model TEXT NOT NULL, stats TEXT NOT NULL, profile_yaml TEXT NOT NULL);
)sql";

constexpr const char* kSchema1To2 = R"sql(
ALTER TABLE samples ADD COLUMN layout TEXT NOT NULL DEFAULT '';
ALTER TABLE samples ADD COLUMN clocks TEXT NOT NULL DEFAULT '';
ALTER TABLE samples ADD COLUMN sm_mhz REAL NOT NULL DEFAULT 0;
ALTER TABLE samples ADD COLUMN temp_c REAL NOT NULL DEFAULT 0;
ALTER TABLE samples ADD COLUMN throttle INTEGER NOT NULL DEFAULT 0;
UPDATE samples SET layout = 'tn' WHERE kind = 'gemm';
)sql";

std::string utc_now() {
  char b[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
}

using sql::Statement;
using sql::Transaction;

std::string join_extra(const std::map<std::string, std::string>& extra) {
  std::string s;
  for (const auto& [k, v] : extra) s += k + ": " + v + "\n";
  return s;
}

std::map<std::string, std::string> split_extra(const std::string& s) {
  std::map<std::string, std::string> m;
  std::size_t pos = 0;
  while (pos < s.size()) {
    const auto nl = s.find('\n', pos);
    const std::string line = s.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    const auto colon = line.find(": ");
    if (colon != std::string::npos) m[line.substr(0, colon)] = line.substr(colon + 2);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return m;
}

}  // namespace

CalibrationStore CalibrationStore::open(const std::string& path) {
  const bool existed = std::filesystem::exists(path);
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    const std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw StoreError(path + ": cannot open calibration database: " + msg);
  }
  CalibrationStore store(db, path);
  sqlite3_busy_timeout(db, 5000);
  const auto refuse = [&](const std::string& why) -> void { throw StoreError(path + ": " + why); };
  std::int64_t app = 0, version = 0, tables = 0;
  try {
    // Reading the header is the first thing that fails on a file that is not SQLite ("file is not a database").
    app = sql::pragma_int(db, "PRAGMA application_id");
    version = sql::pragma_int(db, "PRAGMA user_version");
    tables = sql::pragma_int(db, "SELECT count(*) FROM sqlite_master");
  } catch (const StoreError& e) {
    refuse(std::string("not a clustersim calibration database (") + e.what() + ")");
  }
  if (existed && tables > 0) {
    if (app != kApplicationId) refuse("a SQLite database of another application, not a clustersim calibration database");
    if (version > kSchemaVersion) {
      refuse("calibration schema version " + std::to_string(version) + " is newer than this build reads (" +
             std::to_string(kSchemaVersion) + ")");
    }
    if (version < 1) refuse("calibration database without a schema version");
    Statement check(db, "PRAGMA quick_check");
    const std::string result = check.step() ? check.text(0) : "no answer";
    if (result != "ok") refuse("damaged calibration database (integrity check: " + result + ")");
    if (version == 1) {  // schema 1 -> 2: the samples' new columns, empty for the old runs (GEMMs were TN)
      Transaction tx(db);
      store.exec(kSchema1To2);
      store.exec(("PRAGMA user_version = " + std::to_string(kSchemaVersion)).c_str());
      tx.commit();
    }
  } else {
    Transaction tx(db);
    store.exec(kCalibrationSchema);
    store.exec(("PRAGMA application_id = " + std::to_string(kApplicationId)).c_str());
    store.exec(("PRAGMA user_version = " + std::to_string(kSchemaVersion)).c_str());
    tx.commit();
  }
  store.exec("PRAGMA foreign_keys = ON");
  return store;
}

CalibrationStore::~CalibrationStore() {
  if (db_) sqlite3_close(db_);
}
CalibrationStore::CalibrationStore(CalibrationStore&& o) noexcept
    : db_(std::exchange(o.db_, nullptr)), path_(std::move(o.path_)) {}
CalibrationStore& CalibrationStore::operator=(CalibrationStore&& o) noexcept {
  if (this != &o) {
    if (db_) sqlite3_close(db_);
    db_ = std::exchange(o.db_, nullptr);
    path_ = std::move(o.path_);
  }
  return *this;
}

void CalibrationStore::exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw StoreError(path_ + ": SQLite: " + msg);
  }
}

std::int64_t CalibrationStore::add_run(const CalibrationRun& r, const std::vector<CalibrationSample>& samples) {
  Transaction tx(db_);
  Statement run(db_,
                "INSERT INTO runs(gpu, sm_count, memory_bytes, sm_clock_mhz, mem_clock_mhz, driver, cuda, cublas, nccl, "
                "host, date, tool, extra, imported_at) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  run.bind(1, r.gpu_name).bind(2, std::int64_t{r.sm_count}).bind(3, r.memory.value());
  run.bind(4, std::int64_t{r.sm_clock_mhz}).bind(5, std::int64_t{r.mem_clock_mhz}).bind(6, r.driver).bind(7, r.cuda);
  run.bind(8, r.cublas).bind(9, r.nccl).bind(10, r.host).bind(11, r.date).bind(12, r.tool);
  run.bind(13, join_extra(r.extra)).bind(14, utc_now());
  run.step();
  const std::int64_t id = sqlite3_last_insert_rowid(db_);
  Statement ins(db_,
                "INSERT INTO samples(run_id, kind, op, dtype, m, n, k, batch, heads, seq, head_dim, bytes, ranks, algo, "
                "median_s, p10_s, p90_s, reps, watts, layout, clocks, sm_mhz, temp_c, throttle) "
                "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  for (const auto& s : samples) {
    ins.bind(1, id).bind(2, s.kind).bind(3, s.op).bind(4, s.dtype).bind(5, s.m).bind(6, s.n).bind(7, s.k);
    ins.bind(8, s.batch).bind(9, s.heads).bind(10, s.seq).bind(11, s.head_dim).bind(12, s.bytes.value());
    ins.bind(13, std::int64_t{s.ranks}).bind(14, s.algo).bind(15, s.median.value()).bind(16, s.p10.value());
    ins.bind(17, s.p90.value()).bind(18, std::int64_t{s.reps}).bind(19, s.watts.value()).bind(20, s.layout);
    ins.bind(21, s.clocks).bind(22, s.sm_mhz).bind(23, s.temp_c).bind(24, s.throttle);
    ins.step();
    ins.reset();
  }
  tx.commit();
  return id;
}

std::int64_t CalibrationStore::add_fit(const StoredFit& f) {
  Transaction tx(db_);
  Statement ins(db_, "INSERT INTO fits(run_id, created_at, profile_name, model, stats, profile_yaml) VALUES(?,?,?,?,?,?)");
  ins.bind(1, f.run_id).bind(2, f.created_at.empty() ? utc_now() : f.created_at).bind(3, f.profile_name);
  ins.bind(4, f.model).bind(5, f.stats).bind(6, f.profile_yaml);
  ins.step();
  const std::int64_t id = sqlite3_last_insert_rowid(db_);
  tx.commit();
  return id;
}

std::vector<StoredRun> CalibrationStore::runs() const {
  Statement st(db_,
               "SELECT r.id, gpu, sm_count, memory_bytes, sm_clock_mhz, mem_clock_mhz, driver, cuda, cublas, nccl, host, "
               "date, tool, extra, imported_at, (SELECT count(*) FROM samples s WHERE s.run_id = r.id) FROM runs r "
               "ORDER BY r.id");
  std::vector<StoredRun> out;
  while (st.step()) {
    StoredRun s;
    s.id = st.integer(0);
    CalibrationRun& r = s.run;
    r.gpu_name = st.text(1);
    r.sm_count = static_cast<int>(st.integer(2));
    r.memory = Bytes{st.real(3)};
    r.sm_clock_mhz = static_cast<int>(st.integer(4));
    r.mem_clock_mhz = static_cast<int>(st.integer(5));
    r.driver = st.text(6);
    r.cuda = st.text(7);
    r.cublas = st.text(8);
    r.nccl = st.text(9);
    r.host = st.text(10);
    r.date = st.text(11);
    r.tool = st.text(12);
    r.extra = split_extra(st.text(13));
    s.imported_at = st.text(14);
    s.sample_count = st.integer(15);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<CalibrationSample> CalibrationStore::samples(std::int64_t run_id) const {
  Statement st(db_,
               "SELECT kind, op, dtype, m, n, k, batch, heads, seq, head_dim, bytes, ranks, algo, median_s, p10_s, p90_s, "
               "reps, watts, layout, clocks, sm_mhz, temp_c, throttle FROM samples WHERE run_id = ? ORDER BY id");
  st.bind(1, run_id);
  std::vector<CalibrationSample> out;
  while (st.step()) {
    CalibrationSample s;
    s.kind = st.text(0);
    s.op = st.text(1);
    s.dtype = st.text(2);
    s.m = st.integer(3);
    s.n = st.integer(4);
    s.k = st.integer(5);
    s.batch = st.integer(6);
    s.heads = st.integer(7);
    s.seq = st.integer(8);
    s.head_dim = st.integer(9);
    s.bytes = Bytes{st.real(10)};
    s.ranks = static_cast<int>(st.integer(11));
    s.algo = st.text(12);
    s.median = MeasuredTime{st.real(13)};
    s.p10 = MeasuredTime{st.real(14)};
    s.p90 = MeasuredTime{st.real(15)};
    s.reps = static_cast<int>(st.integer(16));
    s.watts = Watts{st.real(17)};
    s.layout = st.text(18);
    s.clocks = st.text(19);
    s.sm_mhz = st.real(20);
    s.temp_c = st.real(21);
    s.throttle = st.integer(22);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<StoredFit> CalibrationStore::fits(std::int64_t run_id) const {
  Statement st(db_,
               "SELECT id, run_id, created_at, profile_name, model, stats, profile_yaml FROM fits WHERE run_id = ? "
               "ORDER BY id");
  st.bind(1, run_id);
  std::vector<StoredFit> out;
  while (st.step()) {
    out.push_back({st.integer(0), st.integer(1), st.text(2), st.text(3), st.text(4), st.text(5), st.text(6)});
  }
  return out;
}

}  // namespace cs
