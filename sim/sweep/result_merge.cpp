#include "sim/sweep/result_merge.hpp"

#include <filesystem>

#include "sim/core/error.hpp"
#include "sim/store/result_store.hpp"

namespace cs {

MergeSummary merge_results(const std::string& out, const std::vector<std::string>& shards) {
  std::vector<ResultStore> inputs;
  for (const std::string& s : shards) {
    if (std::filesystem::exists(out) && std::filesystem::exists(s) && std::filesystem::equivalent(out, s)) {
      throw InputError({s, 0, 0}, "", "is the output database itself");
    }
    inputs.push_back(ResultStore::open(s, ResultStore::Mode::read_only));
  }
  ResultStore dest = ResultStore::open(out);
  MergeSummary sum;
  for (const ResultStore& in : inputs) {
    const auto rows = in.rows();
    sum.rows_read += rows.size();
    sum.rows_added += static_cast<std::size_t>(dest.add(rows));
  }
  return sum;
}

void remove_database(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path + suffix);
}

}  // namespace cs
