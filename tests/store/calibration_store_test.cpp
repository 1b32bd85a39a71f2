#include "sim/store/calibration_store.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "sim/core/error.hpp"
#include "temp_path.hpp"

namespace cs {
namespace {

std::string temp_db(const std::string& name) {
  return cs::testing::temp_file("store_test_" + name, ".db").string();
}

CalibrationRun run_info() {
  CalibrationRun r;
  r.gpu_name = "NVIDIA H200";
  r.sm_count = 132;
  r.memory = Bytes{150109880320.0};
  r.sm_clock_mhz = 1980;
  r.mem_clock_mhz = 3201;
  r.driver = "580.159.04";
  r.cuda = "13.0.0";
  r.cublas = "13.1.0";
  r.nccl = "2.28.3";
  r.host = "vm";
  r.date = "2026-12-02T13:19:49Z";
  r.tool = "test";
  r.extra["l2_bytes"] = "62914560";
  return r;
}

std::vector<CalibrationSample> samples() {
  CalibrationSample g;
  g.kind = "gemm";
  g.op = "gemm";
  g.dtype = "bf16";
  g.m = 4096;
  g.n = 8192;
  g.k = 2048;
  g.median = MeasuredTime{1.25e-4};
  g.p10 = MeasuredTime{1.2e-4};
  g.p90 = MeasuredTime{1.3e-4};
  g.reps = 11;
  CalibrationSample c;
  c.kind = "collective";
  c.op = "all_reduce";
  c.dtype = "fp32";
  c.bytes = 1_MiB;
  c.ranks = 8;
  c.algo = "auto";
  c.median = MeasuredTime{2e-5};
  c.reps = 9;
  return {g, c};
}

TEST(CalibrationStore, StoresRunsAndSamplesAndReadsThemBack) {
  const auto path = temp_db("roundtrip");
  {
    auto store = CalibrationStore::open(path);
    EXPECT_EQ(store.add_run(run_info(), samples()), 1);
  }
  const auto store = CalibrationStore::open(path);  // reopened: the schema is recognised
  const auto runs = store.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].run.gpu_name, "NVIDIA H200");
  EXPECT_EQ(runs[0].run.sm_count, 132);
  EXPECT_EQ(runs[0].run.memory, Bytes{150109880320.0});
  EXPECT_EQ(runs[0].run.nccl, "2.28.3");
  EXPECT_EQ(runs[0].run.extra.at("l2_bytes"), "62914560");
  EXPECT_EQ(runs[0].sample_count, 2);
  const auto back = store.samples(1);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].m, 4096);
  EXPECT_EQ(back[0].k, 2048);
  EXPECT_EQ(back[0].median, MeasuredTime{1.25e-4});
  EXPECT_EQ(back[0].p10, MeasuredTime{1.2e-4});
  EXPECT_EQ(back[1].bytes, 1_MiB);
  EXPECT_EQ(back[1].ranks, 8);
  EXPECT_EQ(back[1].algo, "auto");
}

TEST(CalibrationStore, RerunningAppendsANewRun) {
  const auto path = temp_db("append");
  for (int i = 0; i < 3; ++i) {
    auto store = CalibrationStore::open(path);
    store.add_run(run_info(), samples());
  }
  const auto store = CalibrationStore::open(path);
  ASSERT_EQ(store.runs().size(), 3u);
  EXPECT_EQ(store.runs()[2].id, 3);
  EXPECT_EQ(store.samples(2).size(), 2u);
}

TEST(CalibrationStore, StoresFits) {
  const auto path = temp_db("fits");
  auto store = CalibrationStore::open(path);
  const auto run = store.add_run(run_info(), samples());
  store.add_fit({0, run, "", "h200", "gemm", "gemm_holdout_median=0.04\n", "format_version: 2\n"});
  const auto fits = store.fits(run);
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_EQ(fits[0].profile_name, "h200");
  EXPECT_EQ(fits[0].profile_yaml, "format_version: 2\n");
  EXPECT_FALSE(fits[0].created_at.empty());
}

TEST(CalibrationStore, AFailedWriteLeavesNothingBehind) {
  const auto path = temp_db("atomic");
  auto store = CalibrationStore::open(path);
  store.add_run(run_info(), samples());
  auto bad = samples();
  bad[1].median = MeasuredTime{std::numeric_limits<double>::quiet_NaN()};  // SQLite stores NaN as NULL: NOT NULL fails
  EXPECT_THROW(store.add_run(run_info(), bad), StoreError);
  // Neither the second run nor its first (valid) sample was kept.
  EXPECT_EQ(store.runs().size(), 1u);
  EXPECT_EQ(store.samples(2).size(), 0u);
}

TEST(CalibrationStore, RefusesAFileThatIsNotSqlite) {
  const auto path = temp_db("garbage");
  std::ofstream(path) << "this is a CSV file, not a database\n1,2,3\n";
  try {
    (void)CalibrationStore::open(path);
    FAIL() << "opened a non-database";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("not a clustersim calibration database"), std::string::npos) << e.what();
  }
}

TEST(CalibrationStore, RefusesAnotherApplicationsDatabase) {
  const auto path = temp_db("foreign");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE photos(id INTEGER, name TEXT)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  try {
    (void)CalibrationStore::open(path);
    FAIL() << "opened a foreign database";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("another application"), std::string::npos) << e.what();
  }
}

TEST(CalibrationStore, RefusesANewerSchema) {
  const auto path = temp_db("newer");
  (void)CalibrationStore::open(path);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  try {
    (void)CalibrationStore::open(path);
    FAIL() << "opened a newer schema";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("newer than this build reads"), std::string::npos) << e.what();
  }
}

TEST(CalibrationStore, RefusesADamagedDatabase) {
  const auto path = temp_db("damaged");
  {
    auto store = CalibrationStore::open(path);
    std::vector<CalibrationSample> many(2000, samples()[0]);
    store.add_run(run_info(), many);
  }
  // Overwrite a stretch in the middle of the file (past the header page) with garbage.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8192);
    const std::string junk(16384, '\x5a');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  EXPECT_THROW((void)CalibrationStore::open(path), StoreError);
}

// A schema-1 database (run 2's, committed before the clock columns existed) is migrated in place on opening:
// its GEMM samples read back as TN, with no clock recorded; new runs keep their clocks.
TEST(CalibrationStore, MigratesASchemaOneDatabase) {
  const auto path = temp_db("schema1");
  std::filesystem::copy_file(std::string(CS_SOURCE_DIR) + "/profiles/h200-calibration/calibration.db", path,
                             std::filesystem::copy_options::overwrite_existing);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(st, 0), 1);
    sqlite3_finalize(st);
    sqlite3_close(db);
  }
  auto store = CalibrationStore::open(path);
  const auto runs = store.runs();
  ASSERT_FALSE(runs.empty());
  const auto old = store.samples(runs.front().id);
  const auto gemm = std::find_if(old.begin(), old.end(), [](const CalibrationSample& x) { return x.kind == "gemm"; });
  ASSERT_NE(gemm, old.end());
  EXPECT_EQ(gemm->layout, "tn");
  EXPECT_EQ(gemm->sm_mhz, 0.0);
  auto fresh = samples();
  fresh[0].layout = "nt";
  fresh[0].clocks = "sustained";
  fresh[0].sm_mhz = 1530;
  const auto id = store.add_run(run_info(), fresh);
  const auto back = store.samples(id);
  EXPECT_EQ(back[0].layout, "nt");
  EXPECT_EQ(back[0].clocks, "sustained");
  EXPECT_EQ(back[0].sm_mhz, 1530.0);
}

TEST(SamplesFile, WritesAndReadsBack) {
  std::stringstream s;
  write_samples_header(s, run_info());
  for (const auto& x : samples()) write_sample(s, x);
  const SamplesFile f = read_samples(s, "mem");
  EXPECT_EQ(f.run.gpu_name, "NVIDIA H200");
  EXPECT_EQ(f.run.mem_clock_mhz, 3201);
  EXPECT_EQ(f.run.memory, Bytes{1.5010988e11});  // the header keeps 9 significant digits
  EXPECT_EQ(f.run.extra.at("l2_bytes"), "62914560");
  ASSERT_EQ(f.samples.size(), 2u);
  EXPECT_EQ(f.samples[0].n, 8192);
  EXPECT_EQ(f.samples[0].p90, MeasuredTime{1.3e-4});
  EXPECT_EQ(f.samples[1].op, "all_reduce");
}

TEST(SamplesFile, LocatesMalformedRows) {
  std::stringstream s;
  write_samples_header(s, run_info());
  s << "gemm,gemm,bf16,64,64,x64,1,0,0,0,0,1,,1e-5,1e-5,1e-5,5,0,tn,sustained,1515,55,4\n";
  try {
    (void)read_samples(s, "bad.csv");
    FAIL() << "accepted a malformed row";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 16);  // banner, 12 provenance lines, 1 extra (l2_bytes), column header
    EXPECT_EQ(e.where().column, 6);
    EXPECT_NE(e.message().find("k: \"x64\""), std::string::npos) << e.what();
  }
}

// The typed fields keep every digit of the file. A kernel of 6.64238787 us is why the times are MeasuredTime
// (double seconds) and not Time: in integer nanoseconds it would read back as 6.642 us.
TEST(SamplesFile, TypedFieldsRoundTripExactly) {
  CalibrationSample m;
  m.kind = "memory";
  m.op = "copy";
  m.dtype = "fp32";
  m.bytes = 16_MiB;
  m.median = MeasuredTime{6.64238787e-06};
  m.p10 = MeasuredTime{6.63713421e-06};
  m.p90 = MeasuredTime{6.64501493e-06};
  m.watts = Watts{538.192};
  std::stringstream s;
  write_samples_header(s, run_info());
  write_sample(s, m);
  const SamplesFile f = read_samples(s, "mem");
  ASSERT_EQ(f.samples.size(), 1u);
  EXPECT_EQ(f.samples[0].bytes, m.bytes);
  EXPECT_EQ(f.samples[0].median, m.median);
  EXPECT_EQ(f.samples[0].p10, m.p10);
  EXPECT_EQ(f.samples[0].p90, m.p90);
  EXPECT_EQ(f.samples[0].watts, m.watts);
  EXPECT_NE(Time::from_seconds(m.median.value()).seconds(), m.median.value());
  // 16,777,216 B moved in 6.64238787 us: 2.5258 TB/s.
  EXPECT_NEAR((m.bytes / m.median).value(), 2.5258e12, 0.0001e12);
}

// A committed samples file written back through the typed fields gives the same rows, byte for byte.
TEST(SamplesFile, CommittedFileRowsWriteBackUnchanged) {
  const std::string path = std::string(CS_SOURCE_DIR) + "/profiles/h200-calibration/run5-align16/samples-align16.csv";
  const SamplesFile f = read_samples_file(path);
  std::ifstream in(path);
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#' && line.rfind("kind,", 0) != 0) rows.push_back(line);
  }
  ASSERT_EQ(rows.size(), f.samples.size());
  ASSERT_GT(rows.size(), 1000u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::stringstream out;
    write_sample(out, f.samples[i]);
    ASSERT_EQ(out.str(), rows[i] + "\n") << "row " << i;
  }
}

// Format v1 files (18 columns, before the clock columns) still read: their GEMMs were TN, nothing recorded.
TEST(SamplesFile, ReadsVersionOneFilesAndTheNewColumns) {
  std::stringstream v1;
  v1 << "# clustersim calibration samples v1\n# gpu: H\n"
     << "kind,op,dtype,m,n,k,batch,heads,seq,head_dim,bytes,ranks,algo,median_s,p10_s,p90_s,reps,watts\n"
     << "gemm,gemm,bf16,64,64,64,1,0,0,0,0,1,,1e-5,1e-5,1e-5,5,0\n";
  const SamplesFile a = read_samples(v1, "v1.csv");
  ASSERT_EQ(a.samples.size(), 1u);
  EXPECT_EQ(a.samples[0].layout, "tn");
  EXPECT_EQ(a.samples[0].clocks, "");
  EXPECT_EQ(a.samples[0].sm_mhz, 0.0);
  std::stringstream v2;
  write_samples_header(v2, run_info());
  CalibrationSample g = a.samples[0];
  g.layout = "nn";
  g.clocks = "sustained";
  g.sm_mhz = 1515;
  g.watts = Watts{696.5};
  g.temp_c = 56;
  g.throttle = 4;
  write_sample(v2, g);
  const SamplesFile b = read_samples(v2, "v2.csv");
  ASSERT_EQ(b.samples.size(), 1u);
  EXPECT_EQ(b.samples[0].layout, "nn");
  EXPECT_EQ(b.samples[0].clocks, "sustained");
  EXPECT_EQ(b.samples[0].sm_mhz, 1515.0);
  EXPECT_EQ(b.samples[0].watts, Watts{696.5});
  EXPECT_EQ(b.samples[0].temp_c, 56.0);
  EXPECT_EQ(b.samples[0].throttle, 4);
  std::stringstream bad;
  write_samples_header(bad, run_info());
  bad << "gemm,gemm,bf16,64,64,64,1,0,0,0,0,1,,1e-5,1e-5,1e-5,5,0,tt,sustained,1515,55,4\n";
  EXPECT_THROW((void)read_samples(bad, "bad.csv"), InputError);  // no such layout
}

}  // namespace
}  // namespace cs
