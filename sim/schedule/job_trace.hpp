// Public cluster job traces as a schedule's batch jobs: each job's submit time, GPUs and run time. Formats and
// their mapping (docs/schedule.md):
//   csv     clustersim's own: submit_s, gpus, duration_s, optional name, tenant, priority.
//   helios  SenseTime's Helios traces (Hu et al., SC '21; cluster_log.csv): submit_time, gpu_num, duration
//           (seconds; else end_time - start_time), job_id, user; times as epoch seconds or "YYYY-MM-DD HH:MM:SS".
//   pai     Alibaba PAI (Weng et al., NSDI '22; pai_task_table.csv): one job per task row: start_time as its
//           submit (the table has no submit time, so the trace's queueing is not reproduced), end_time -
//           start_time, GPUs = ceil(inst_num x plan_gpu / 100) (plan_gpu is a percentage of one GPU).
//   philly  Microsoft Philly (Jeon et al., ATC '19; msr-fiddle/philly-traces cluster_job_log): a JSON list of
//           jobs with jobid, submitted_time and attempts, each with start_time, end_time and detail (the machines
//           and their gpus): GPUs = those of the first attempt, run time = the first attempt's start to the last's
//           end (retries included), times "YYYY-MM-DD HH:MM:SS"; jobs that never ran ("None") are skipped.
// Jobs with no GPUs or no run time are skipped (counted). Submit times start at the trace's earliest, plus an
// offset.
#pragma once

#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/input/param_table.hpp"

namespace cs {

enum class TraceFormat { csv, helios, pai, philly };
[[nodiscard]] const EnumTable<TraceFormat>& trace_format_names();

struct TraceJob {
  std::string name;
  std::string tenant;
  int priority = 0;
  int gpus = 0;
  double submit_s = 0, duration_s = 0;
};

struct TraceRead {
  std::vector<TraceJob> jobs;
  int skipped = 0;  ///< rows without GPUs or without a run time
};

/// Reads `path` in `format`; at most `limit` jobs (0: all) in submit order, submit times from `offset`. Throws
/// InputError naming the file, line and column for a missing column or a bad cell (a Philly log: the file and the
/// job's index and key; the line of a JSON syntax error).
[[nodiscard]] TraceRead read_job_trace(const std::string& path, TraceFormat format, int limit, Time offset,
                                       const std::string& tenant);

}  // namespace cs
