// The results database: rows keyed by content hash, refusal of foreign, newer or damaged files (untouched).
#include <gtest/gtest.h>

#include "temp_path.hpp"
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/store/calibration_store.hpp"
#include "sim/store/result_store.hpp"
#include "sim/sweep/result_merge.hpp"

namespace cs {
namespace {

namespace fs = std::filesystem;

fs::path store_dir(const std::string& name) { return testing::temp_dir("result_store_" + name); }

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

ResultRow row(const std::string& hash, int index, const std::string& status = "ok") {
  ResultRow r;
  r.hash = hash;
  r.sweep = "t";
  r.point_index = index;
  r.label = "x=" + std::to_string(index);
  r.scenario_yaml = "name: p" + std::to_string(index) + "\n";
  r.clustersim_version = "0.1.0";
  r.profile = "h100-sxm";
  r.profile_source = "datasheet";
  r.status = status;
  if (status == "ok") r.result = R"({"step_time_s": 1.5})";
  else r.reason = "out of memory";
  r.created_at = "2026-01-01T00:00:00Z";
  return r;
}

void sqlite_exec(const fs::path& p, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

TEST(ResultStore, StoresEachPointOnceAndReadsItBack) {
  const fs::path d = store_dir("once");
  ResultStore s = ResultStore::open((d / "r.sqlite").string());
  EXPECT_EQ(s.add({row("a", 0), row("b", 1, "failed")}), 2);
  EXPECT_EQ(s.add({row("a", 0), row("c", 2)}), 1);  // "a" is already there
  const auto rows = s.rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_TRUE(rows[0].same_content(row("a", 0)));
  EXPECT_EQ(rows[1].status, "failed");
  EXPECT_EQ(rows[1].reason, "out of memory");
  EXPECT_FALSE(rows[1].result.has_value());
  EXPECT_EQ(s.hashes(), (std::set<std::string>{"a", "b", "c"}));
  EXPECT_EQ(s.integrity_check(), "ok");
}

TEST(ResultStore, RefusesForeignNewerAndNonDatabaseFilesWithoutTouchingThem) {
  const fs::path d = store_dir("refuse");
  const fs::path text = d / "notes.txt";
  std::ofstream(text) << "not a database at all, just some text that is long enough to look like a header\n";
  const fs::path foreign = d / "foreign.sqlite";
  sqlite_exec(foreign, "CREATE TABLE t(x); INSERT INTO t VALUES(1);");
  const fs::path newer = d / "newer.sqlite";
  (void)ResultStore::open(newer.string());
  sqlite_exec(newer, "PRAGMA user_version = 2");
  const fs::path calib = d / "calib.sqlite";
  (void)CalibrationStore::open(calib.string());

  for (const fs::path& p : {text, foreign, newer, calib}) {
    const std::string before = bytes_of(p);
    try {
      (void)ResultStore::open(p.string());
      ADD_FAILURE() << p << " was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where().file, p.string());
      const std::string what = e.what();
      if (p == newer) {
        EXPECT_NE(what.find("newer"), std::string::npos) << what;
      }
      if (p == foreign) {
        EXPECT_NE(what.find("another application"), std::string::npos) << what;
      }
      if (p == calib) {
        EXPECT_NE(what.find("calibration database"), std::string::npos) << what;
      }
    }
    EXPECT_EQ(bytes_of(p), before) << p << " was modified";
    EXPECT_FALSE(fs::exists(p.string() + "-wal")) << p;
  }
}

TEST(ResultStore, MergeIsIdempotent) {
  const fs::path d = store_dir("merge");
  {
    ResultStore a = ResultStore::open((d / "a.sqlite").string());
    a.add({row("a", 0), row("b", 1)});
    ResultStore b = ResultStore::open((d / "b.sqlite").string());
    b.add({row("b", 1), row("c", 2)});
  }
  const std::string out = (d / "out.sqlite").string();
  const auto first = merge_results(out, {(d / "a.sqlite").string(), (d / "b.sqlite").string()});
  EXPECT_EQ(first.rows_read, 4u);
  EXPECT_EQ(first.rows_added, 3u);  // a, b, c: b appears in both shards
  const auto again = merge_results(out, {(d / "a.sqlite").string(), (d / "b.sqlite").string()});
  EXPECT_EQ(again.rows_added, 0u);
  EXPECT_EQ(ResultStore::open(out, ResultStore::Mode::read_only).rows().size(), 3u);
  EXPECT_THROW((void)merge_results(out, {out}), InputError);
}

}  // namespace
}  // namespace cs
