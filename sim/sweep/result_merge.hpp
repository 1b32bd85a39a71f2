// Merging results databases (shards of a Slurm job array, MPI ranks): every row of every shard lands in the
// output once, keyed by its content hash, so merging twice, or merging overlapping shards, changes nothing.
#pragma once

#include <string>
#include <vector>

namespace cs {

struct MergeSummary {
  std::size_t rows_read = 0;
  std::size_t rows_added = 0;  ///< rows the output did not hold yet
};

/// Checks every shard (read-only; InputError for one that is not a results database) and then adds their
/// rows to `out` (created when absent), one transaction per shard.
MergeSummary merge_results(const std::string& out, const std::vector<std::string>& shards);

/// Removes a SQLite database file with its -wal and -shm companions.
void remove_database(const std::string& path);

}  // namespace cs
