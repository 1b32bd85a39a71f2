// The sweep command end to end, through the real clustersim binary: kill -9 at several moments and resume,
// shards + merge, the Slurm array script, mpirun -np 2, and bad input refused with exit status 2.
#include <gtest/gtest.h>

#include "temp_path.hpp"
#include <signal.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "sim/store/result_store.hpp"
#include "sim/sweep/mpi_session.hpp"
#include "sim/sweep/sweep_expansion.hpp"

namespace cs {
namespace {

namespace fs = std::filesystem;
const std::string kBin = std::string(CS_BINARY_DIR) + "/sim/cli/clustersim";

fs::path sweep_dir(const std::string& name) { return testing::temp_dir("sweep_cli_" + name); }

/// A sweep over the 8x H100 GPT-3 1.3B scenario: micro-batch x global batch. The measured H200 profile is slow
/// enough per point (about 0.1 s) that a kill lands mid-sweep; the datasheet H100 one is fast.
fs::path write_sweep(const fs::path& dir, int batches, const std::string& profile = "h200") {
  std::string gb = "[256";
  for (int i = 1; i < batches; ++i) gb += ", " + std::to_string(256 << i);
  const fs::path p = dir / "sweep.yaml";
  std::ofstream(p) << "format_version: 1\nname: cli test\nbase: " << CS_SOURCE_DIR
                   << "/scenarios/gpt3-1.3b-8xh100-dp.yaml\nset:\n  cluster.profile: " << profile << "\naxes:\n"
                   << "  training.micro_batch: [1, 2, 4, 8]\n  training.global_batch: " << gb << "]\n";
  return p;
}

pid_t spawn(const std::vector<std::string>& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const int null = ::open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int run(const std::vector<std::string>& args) { return wait_exit(spawn(args)); }

std::size_t stored_rows(const fs::path& db) {
  if (!fs::exists(db)) return 0;
  try {
    return ResultStore::open(db.string(), ResultStore::Mode::read_only).hashes().size();
  } catch (const std::exception&) {
    return 0;  // created but not initialised yet
  }
}

std::vector<ResultRow> rows_of(const fs::path& db) {
  return ResultStore::open(db.string(), ResultStore::Mode::read_only).rows();
}

void expect_same_rows(const std::vector<ResultRow>& a, const std::vector<ResultRow>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(a[i].same_content(b[i])) << "row " << i << ": " << a[i].label;
}

TEST(SweepCli, KillNineAtAnyMomentThenRerunStoresEveryPointExactlyOnce) {
  const fs::path d = sweep_dir("kill");
  // 4 x 12 = 48 points at ~0.1 s each: rows are committed about once a second, so each kill below lands
  // with points still to go.
  const fs::path sweep = write_sweep(d, 12);
  constexpr std::size_t kPoints = 48;
  const fs::path db = d / "r.sqlite";
  const std::vector<std::string> cmd{kBin, "sweep", sweep.string(), "--db", db.string(), "-j", "1"};

  // 1: killed almost at once (while checking the points or creating the database).
  pid_t pid = spawn(cmd);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  kill(pid, SIGKILL);
  EXPECT_EQ(wait_exit(pid), 128 + SIGKILL);

  // 2 and 3: killed once some rows are in, then once more have landed.
  std::size_t before = stored_rows(db);
  for (int round = 0; round < 2; ++round) {
    pid = spawn(cmd);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (stored_rows(db) <= before && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(pid, SIGKILL);
    EXPECT_EQ(wait_exit(pid), 128 + SIGKILL);
    const std::size_t now = stored_rows(db);
    EXPECT_GT(now, before);
    EXPECT_LT(now, kPoints) << "the sweep finished before the kill; the test did not interrupt it";
    before = now;
  }

  ASSERT_EQ(run(cmd), 0);
  const ResultStore store = ResultStore::open(db.string(), ResultStore::Mode::read_only);
  EXPECT_EQ(store.integrity_check(), "ok");
  const auto rows = store.rows();
  ASSERT_EQ(rows.size(), kPoints);
  // Exactly the sweep's points, each once, in point order.
  const auto points = expand_sweep(load_sweep(sweep.string()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].point_index, static_cast<std::int64_t>(i));
    EXPECT_EQ(rows[i].hash, points[i].hash);
  }
  // A rerun evaluates nothing and adds nothing.
  ASSERT_EQ(run(cmd), 0);
  EXPECT_EQ(stored_rows(db), kPoints);
  // The interrupted-and-resumed rows equal those of an uninterrupted run on two threads.
  const fs::path clean = d / "clean.sqlite";
  ASSERT_EQ(run({kBin, "sweep", sweep.string(), "--db", clean.string(), "-j", "2"}), 0);
  expect_same_rows(rows, rows_of(clean));
}

TEST(SweepCli, ShardsMergedEqualOneRunAndTheSbatchScriptRunsTheShards) {
  const fs::path d = sweep_dir("shard");
  const fs::path sweep = write_sweep(d, 2, "h100-sxm");  // 8 points
  const fs::path full = d / "full.sqlite";
  ASSERT_EQ(run({kBin, "sweep", sweep.string(), "--db", full.string(), "-j", "1"}), 0);

  std::vector<std::string> merge{kBin, "results", "merge", (d / "merged.sqlite").string()};
  for (int i = 0; i < 3; ++i) {
    const fs::path shard = d / ("shard" + std::to_string(i) + ".sqlite");
    ASSERT_EQ(run({kBin, "sweep", sweep.string(), "--db", shard.string(), "--shard", std::to_string(i) + "/3"}), 0);
    EXPECT_EQ(stored_rows(shard), i < 2 ? 3u : 2u);  // points 0,3,6 / 1,4,7 / 2,5
    merge.push_back(shard.string());
  }
  ASSERT_EQ(run(merge), 0);
  ASSERT_EQ(run(merge), 0);  // idempotent
  expect_same_rows(rows_of(full), rows_of(d / "merged.sqlite"));

  // The job-array script: run each array task as Slurm would (SLURM_ARRAY_TASK_ID set), then merge.
  const fs::path script = d / "job.sh";
  const fs::path db = d / "slurm.sqlite";
  ASSERT_EQ(run({kBin, "sweep", sweep.string(), "--db", db.string(), "--sbatch", script.string(), "--tasks", "2", "-j", "1"}), 0);
  std::stringstream text;
  text << std::ifstream(script).rdbuf();
  EXPECT_NE(text.str().find("#SBATCH --array=0-1"), std::string::npos) << text.str();
  EXPECT_FALSE(fs::exists(db));  // --sbatch writes the script and runs nothing
  for (int task = 0; task < 2; ++task) {
    const std::string line = "SLURM_ARRAY_TASK_ID=" + std::to_string(task) + " SLURM_CPUS_PER_TASK=1 bash " +
                             script.string() + " > /dev/null 2>&1";
    ASSERT_EQ(std::system(line.c_str()), 0);
  }
  ASSERT_EQ(run({kBin, "results", "merge", db.string(), db.string() + ".shard-0-of-2.sqlite",
                 db.string() + ".shard-1-of-2.sqlite"}),
            0);
  expect_same_rows(rows_of(full), rows_of(db));
}

TEST(SweepCli, MpirunTwoRanksGivesTheSameRowsAsOneThread) {
  if (std::system("command -v mpirun > /dev/null 2>&1") != 0) GTEST_SKIP() << "mpirun not installed";
  if (!MpiSession::available()) GTEST_SKIP() << "built without MPI";
  const fs::path d = sweep_dir("mpi");
  const fs::path sweep = write_sweep(d, 2, "h100-sxm");
  const fs::path one = d / "one.sqlite", mpi = d / "mpi.sqlite";
  ASSERT_EQ(run({kBin, "sweep", sweep.string(), "--db", one.string(), "-j", "1"}), 0);
  // Open MPI refuses to run as root without these; harmless otherwise.
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  // Under the asan preset, LeakSanitizer would report Open MPI's own allocations that outlive MPI_Finalize (its
  // dlopened components are unloaded by then, so no suppression can name them): the ranks run without leak
  // checks. The same sweep code is leak-checked by the one-process tests above.
  const std::string line = "LSAN_OPTIONS=detect_leaks=0 mpirun -np 2 --oversubscribe " + kBin + " sweep " +
                           sweep.string() + " --db " + mpi.string() + " -j 1 > " + (d / "mpi.log").string() + " 2>&1";
  const int rc = std::system(line.c_str());
  std::stringstream log;
  log << std::ifstream(d / "mpi.log").rdbuf();
  ASSERT_EQ(rc, 0) << log.str();
  EXPECT_NE(log.str().find("rank 1/2"), std::string::npos) << log.str();  // two ranks really ran
  expect_same_rows(rows_of(one), rows_of(mpi));
  EXPECT_FALSE(fs::exists(mpi.string() + ".shard-0-of-2.sqlite"));  // shards merged and removed
}

/// A one-node Slurm cluster (slurmctld + slurmd on this host, auth/none, private ports and state directory),
/// stopped again on destruction. Empty `error()` when it came up.
class LocalSlurm {
 public:
  explicit LocalSlurm(const fs::path& dir) : dir_(dir) {
    if (geteuid() != 0) { error_ = "needs root (slurmd runs jobs as their user)"; return; }
    if (std::system("command -v slurmctld slurmd sbatch > /dev/null 2>&1") != 0) { error_ = "slurm-wlm not installed"; return; }
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const int port = 20000 + static_cast<int>(getpid() % 20000);
    fs::create_directories(dir / "state");
    fs::create_directories(dir / "spool");
    const std::string d = dir.string();
    std::ofstream(dir / "slurm.conf")
        << "ClusterName=cstest\nSlurmctldHost=" << host << "\nAuthType=auth/none\nCredType=cred/none\n"
        << "SlurmUser=root\nSlurmdUser=root\nSlurmctldPort=" << port << "\nSlurmdPort=" << port + 1 << "\n"
        << "StateSaveLocation=" << d << "/state\nSlurmdSpoolDir=" << d << "/spool\n"
        << "SlurmctldPidFile=" << d << "/slurmctld.pid\nSlurmdPidFile=" << d << "/slurmd.pid\n"
        << "SlurmctldLogFile=" << d << "/slurmctld.log\nSlurmdLogFile=" << d << "/slurmd.log\n"
        << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSchedulerType=sched/builtin\n"
        << "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\nReturnToService=2\nMpiDefault=none\n"
        << "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
        << "NodeName=" << host << " CPUs=" << std::max(1u, std::thread::hardware_concurrency()) << " State=UNKNOWN\n"
        << "PartitionName=test Nodes=" << host << " Default=YES MaxTime=INFINITE State=UP\n";
    setenv("SLURM_CONF", (dir / "slurm.conf").c_str(), 1);
    if (std::system("slurmctld -c -i > /dev/null 2>&1") != 0 || std::system("slurmd > /dev/null 2>&1") != 0) {
      error_ = "slurmctld or slurmd did not start (see " + d + ")";
      return;
    }
    // Up when the node is idle (within 30 s).
    for (int i = 0; i < 300; ++i) {
      if (std::system("sinfo -h -o %t 2>/dev/null | grep -q idle") == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    error_ = "the Slurm node did not become idle within 30 s";
  }
  ~LocalSlurm() {
    for (const char* pid_file : {"slurmd.pid", "slurmctld.pid"}) {
      std::ifstream in(dir_ / pid_file);
      pid_t pid = 0;
      if (in >> pid && pid > 0) kill(pid, SIGTERM);
    }
    unsetenv("SLURM_CONF");
  }
  LocalSlurm(const LocalSlurm&) = delete;
  LocalSlurm& operator=(const LocalSlurm&) = delete;
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  fs::path dir_;
  std::string error_;
};

TEST(SweepCli, TheSbatchScriptRunsAsARealSlurmJobArray) {
  const fs::path d = sweep_dir("slurm");
  const LocalSlurm slurm(d / "slurm");
  if (!slurm.error().empty()) GTEST_SKIP() << "no local Slurm cluster: " << slurm.error();
  const fs::path sweep = write_sweep(d, 2, "h100-sxm");  // 8 points
  const fs::path full = d / "full.sqlite", db = d / "slurm.sqlite", script = d / "job.sh";
  ASSERT_EQ(run({kBin, "sweep", sweep.string(), "--db", full.string(), "-j", "1"}), 0);
  ASSERT_EQ(run({kBin, "sweep", sweep.string(), "--db", db.string(), "--sbatch", script.string(), "--tasks", "3", "-j", "1"}), 0);
  const std::string submit = "cd " + d.string() + " && sbatch --wait " + script.string() + " > submit.log 2>&1";
  ASSERT_EQ(std::system(submit.c_str()), 0) << "see " << d;
  std::vector<std::string> merge{kBin, "results", "merge", db.string()};
  for (int i = 0; i < 3; ++i) merge.push_back(db.string() + ".shard-" + std::to_string(i) + "-of-3.sqlite");
  ASSERT_EQ(run(merge), 0);
  expect_same_rows(rows_of(full), rows_of(db));
}

TEST(SweepCli, BadInputExitsTwoAndWritesNothing) {
  const fs::path d = sweep_dir("bad");
  const fs::path sweep = d / "bad.yaml";
  std::ofstream(sweep) << "format_version: 1\nname: bad\nbase: " << CS_SOURCE_DIR
                       << "/scenarios/gpt3-1.3b-8xh100-dp.yaml\naxes:\n  cluster.gpus: [8, 16]\n  training.precision: [bf16, 7W]\n";
  EXPECT_EQ(run({kBin, "sweep", sweep.string(), "--db", (d / "r.sqlite").string()}), 2);
  EXPECT_FALSE(fs::exists(d / "r.sqlite"));

  // A database of another application is refused and left as it was.
  const fs::path good = write_sweep(d, 1);
  const fs::path foreign = d / "foreign.sqlite";
  std::ofstream(foreign) << "SQLite format 3 is what this pretends to be, but it is text";
  EXPECT_EQ(run({kBin, "sweep", good.string(), "--db", foreign.string()}), 2);
  std::stringstream text;
  text << std::ifstream(foreign).rdbuf();
  EXPECT_EQ(text.str(), "SQLite format 3 is what this pretends to be, but it is text");
}

}  // namespace
}  // namespace cs
