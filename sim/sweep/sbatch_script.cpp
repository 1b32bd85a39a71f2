#include "sim/sweep/sbatch_script.hpp"

#include <fmt/format.h>

namespace cs {
namespace {
/// Single-quotes `s` for the shell.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

std::string shard_database(const std::string& db, int index, int count) {
  return fmt::format("{}.shard-{}-of-{}.sqlite", db, index, count);
}

std::string sbatch_script(const SbatchOptions& o) {
  const std::string shard_glob = fmt::format("{}.shard-*-of-{}.sqlite", o.db, o.tasks);
  return fmt::format(
      "#!/bin/bash\n"
      "# Slurm job array written by `clustersim sweep --sbatch`: task I of {tasks} evaluates every {tasks}th point\n"
      "# of the sweep into its own database. Submit with `sbatch THIS_FILE`; when all tasks have ended, merge:\n"
      "#   {bin} results merge {db} {glob}\n"
      "# (or submit the merge as a dependent job: sbatch --dependency=afterok:JOBID --wrap \"...\").\n"
      "#SBATCH --job-name={name}\n"
      "#SBATCH --array=0-{last}\n"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task={cpus}\n"
      "#SBATCH --time={time}\n"
      "#SBATCH --output={name}-%A_%a.out\n"
      "set -euo pipefail\n"
      "exec {bin} sweep {sweep} --db {db}.shard-${{SLURM_ARRAY_TASK_ID}}-of-{tasks}.sqlite \\\n"
      "  --shard ${{SLURM_ARRAY_TASK_ID}}/{tasks} -j ${{SLURM_CPUS_PER_TASK:-{cpus}}}\n",
      fmt::arg("tasks", o.tasks), fmt::arg("last", o.tasks - 1), fmt::arg("bin", quoted(o.clustersim)),
      fmt::arg("db", quoted(o.db)), fmt::arg("glob", quoted(o.db) + shard_glob.substr(o.db.size())),
      fmt::arg("name", o.job_name), fmt::arg("cpus", o.cpus_per_task), fmt::arg("time", o.time_limit),
      fmt::arg("sweep", quoted(o.sweep)));
}

}  // namespace cs
