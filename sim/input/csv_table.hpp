// A CSV file read whole (RFC 4180: quoted fields may hold commas, quotes and newlines), with each row's
// line number kept so errors can say where they are. Lines starting with '#' ahead of the header are comments
// (a generated file says there how it was made).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/error.hpp"

namespace cs {

class CsvTable {
 public:
  struct Row {
    int line = 0;                      ///< 1-based line where the row starts
    std::vector<std::string> cells;
  };

  /// Reads `path`; throws InputError for a missing file, binary content, unbalanced quotes, an empty file
  /// or rows whose cell count differs from the header's.
  [[nodiscard]] static CsvTable load(const std::string& path);
  [[nodiscard]] static CsvTable parse(const std::string& text, const std::string& name);

  [[nodiscard]] const std::vector<std::string>& header() const noexcept { return header_; }
  [[nodiscard]] const std::vector<Row>& rows() const noexcept { return rows_; }
  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  /// Column index of `name`, or nullopt.
  [[nodiscard]] std::optional<std::size_t> column(const std::string& name) const;
  /// Throws InputError unless every name in `required` is a column.
  void require_columns(const std::vector<std::string>& required) const;
  /// The cell of `row` under column `name` ("" when the column is absent).
  [[nodiscard]] const std::string& cell(const Row& row, const std::string& name) const;

 private:
  std::string file_;
  std::vector<std::string> header_;
  std::map<std::string, std::size_t> index_;
  std::vector<Row> rows_;
};

}  // namespace cs
