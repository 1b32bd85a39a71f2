// A Slurm job-array script for a sweep: task I of N runs `clustersim sweep --shard I/N` into its own
// database; `clustersim results merge` joins them afterwards (the script's last lines say how).
#pragma once

#include <string>

namespace cs {

struct SbatchOptions {
  std::string clustersim;      ///< absolute path of the binary
  std::string sweep;           ///< absolute path of the sweep file
  std::string db;              ///< the merged database; shards are DB.shard-I-of-N.sqlite beside it
  int tasks = 4;               ///< array size N
  int cpus_per_task = 4;       ///< -j of each task
  std::string time_limit = "04:00:00";
  std::string job_name = "clustersim-sweep";
};

[[nodiscard]] std::string shard_database(const std::string& db, int index, int count);
[[nodiscard]] std::string sbatch_script(const SbatchOptions& o);

}  // namespace cs
