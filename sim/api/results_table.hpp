// A results database read as a table (`clustersim results`): every row's JSON result flattened to dotted output
// names, filtered by conditions and reduced to a Pareto front, rendered as text, CSV or JSON; and shard
// databases merged into one.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace cs::api {

/// One value of the table: absent, a number, or text.
using ResultCell = std::variant<std::monostate, double, std::string>;

/// What to read from a results database.
struct ResultsQuery {
  std::string db;                  ///< a database written by `clustersim sweep`
  std::vector<std::string> where;  ///< conditions "NAME OP VALUE" (OP: = != < <= > >=), all of which hold
  std::string pareto;              ///< "A,B[,C]": keep the Pareto front over these outputs (A:max maximises)
  std::string columns;             ///< "A,B,...": the outputs to show; empty: step time, MFU, memory, TTT, TCO
};

struct ResultsTable {
  std::vector<std::string> columns;           ///< point, status, label, then the outputs asked for
  std::vector<std::vector<ResultCell>> rows;  ///< one cell per column
  /// With a Pareto query: the ok points that have every objective, of which `rows` are the front.
  std::optional<std::size_t> pareto_candidates;
};

/// The rows of `query.db` that satisfy the query, in database order (a Pareto front: by its first objective).
/// Names may be a dotted output name or its last part ("mfu"). Throws InputError (at "--where", "--pareto",
/// "--columns") for a name no row has or a malformed condition, and for a file that is not a results database.
[[nodiscard]] ResultsTable query_results(const ResultsQuery& query);

/// The table in aligned columns (cells cut at 60 characters), ending with "N rows".
[[nodiscard]] std::string results_text(const ResultsTable& table);
/// The table as CSV with a header line.
[[nodiscard]] std::string results_csv(const ResultsTable& table);
/// The table as an array of objects, one per row (numbers as numbers, absent cells as null).
[[nodiscard]] nlohmann::ordered_json results_json(const ResultsTable& table);

struct MergeCounts {
  std::size_t rows_read = 0;
  std::size_t rows_added = 0;  ///< rows `out` did not hold yet
};
/// Adds every row of the shard databases to `out` (created when absent), each point once: merging twice, or
/// merging overlapping shards, changes nothing. Throws InputError for a shard that is not a results database.
MergeCounts merge_results(const std::string& out, const std::vector<std::string>& shards);

}  // namespace cs::api
