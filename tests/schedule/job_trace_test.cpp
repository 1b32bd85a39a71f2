// Public job traces read as batch jobs: the Helios and PAI layouts mapped as docs/schedule.md says, on small
// files in those layouts (tests/schedule/data), and bad cells located.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/schedule/job_trace.hpp"

namespace cs {
namespace {

const std::string kData = std::string(CS_SOURCE_DIR) + "/tests/schedule/data/";

TEST(JobTrace, HeliosRowsBecomeJobsFromTheFirstSubmit) {
  const TraceRead r = read_job_trace(kData + "helios_sample.csv", TraceFormat::helios, 0, Time::from_seconds(60), "t");
  ASSERT_EQ(r.jobs.size(), 3u);  // the CPU-only row is skipped
  EXPECT_EQ(r.skipped, 1);
  EXPECT_EQ(r.jobs[0].name, "a1");
  EXPECT_DOUBLE_EQ(r.jobs[0].submit_s, 60);          // 00:00:00 + the offset
  EXPECT_DOUBLE_EQ(r.jobs[1].submit_s, 60 + 1800);   // 00:30:00
  EXPECT_DOUBLE_EQ(r.jobs[2].submit_s, 60 + 3600);   // 01:00:00, failed after an hour: its hour is kept
  EXPECT_EQ(r.jobs[2].gpus, 16);
  EXPECT_DOUBLE_EQ(r.jobs[0].duration_s, 7200);
  EXPECT_EQ(r.jobs[0].tenant, "t");
}

TEST(JobTrace, PaiTasksTakeTheirGpuShareRoundedUp) {
  const TraceRead r = read_job_trace(kData + "pai_task_sample.csv", TraceFormat::pai, 0, Time::zero(), "t");
  // j3 has no plan_gpu, j4 never ended: skipped.
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.skipped, 2);
  EXPECT_EQ(r.jobs[0].name, "j1/worker");
  EXPECT_EQ(r.jobs[0].gpus, 4);     // 4 instances x 100%
  EXPECT_EQ(r.jobs[1].gpus, 1);     // 1 x 50%, rounded up
  EXPECT_DOUBLE_EQ(r.jobs[1].submit_s, 200);
  EXPECT_DOUBLE_EQ(r.jobs[0].duration_s, 3600);
}

TEST(JobTrace, PhillyJobsTakeTheirFirstAttemptsGpusAndRunToTheLastAttempt) {
  const TraceRead r = read_job_trace(kData + "philly_sample.json", TraceFormat::philly, 0, Time::zero(), "t");
  // application_3 has no attempt, application_4 never started ("None"): skipped.
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.skipped, 2);
  EXPECT_EQ(r.jobs[0].name, "application_1");
  EXPECT_EQ(r.jobs[0].gpus, 8);                      // 4 GPUs on each of two machines
  EXPECT_DOUBLE_EQ(r.jobs[0].submit_s, 0);           // submitted 00:00, the trace's first
  EXPECT_DOUBLE_EQ(r.jobs[0].duration_s, 3600);      // 00:10 to 01:10
  EXPECT_EQ(r.jobs[1].gpus, 1);
  EXPECT_DOUBLE_EQ(r.jobs[1].submit_s, 1800);        // 00:30
  EXPECT_DOUBLE_EQ(r.jobs[1].duration_s, 3600);      // first attempt 00:30 to the retry's end 01:30
  EXPECT_EQ(r.jobs[1].tenant, "t");
}

TEST(JobTrace, ABadPhillyLogIsLocated) {
  const auto message = [](const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() / "cs_philly_bad.json";
    std::ofstream(path) << text;
    try {
      (void)read_job_trace(path.string(), TraceFormat::philly, 0, Time::zero(), "t");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("[\n  {\"jobid\": 1,\n  oops\n]").find("cs_philly_bad.json:3"), std::string::npos);
  EXPECT_NE(message("{\"jobs\": []}").find("a JSON list of jobs"), std::string::npos);
  EXPECT_NE(message("[{\"jobid\": \"a\"}]").find("[0].attempts"), std::string::npos);
  EXPECT_NE(message("[{\"submitted_time\": \"2017-10-03 00:00:00\", \"attempts\": [{\"start_time\": "
                    "\"2017-10-03 00:00:00\", \"end_time\": \"2017-10-03 01:00:00\", \"detail\": [{\"ip\": \"m\"}]}]}]")
                .find("[0].attempts[0].detail"),
            std::string::npos);
}

TEST(JobTrace, LimitKeepsTheEarliestAndBadCellsAreLocated) {
  const TraceRead r = read_job_trace(kData + "helios_sample.csv", TraceFormat::helios, 2, Time::zero(), "t");
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[1].name, "a2");
  const auto path = (std::filesystem::temp_directory_path() / "cs_bad_trace.csv").string();
  std::ofstream(path) << "submit_s,gpus,duration_s\n0,8,3600\n10,eight,60\n";
  try {
    (void)read_job_trace(path, TraceFormat::csv, 0, Time::zero(), "t");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cs_bad_trace.csv:3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("gpus"), std::string::npos) << e.what();
  }
  std::ofstream(path) << "when,gpus\n0,8\n";
  EXPECT_THROW((void)read_job_trace(path, TraceFormat::helios, 0, Time::zero(), "t"), InputError);
}

}  // namespace
}  // namespace cs
