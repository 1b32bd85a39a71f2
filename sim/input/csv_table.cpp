#include "sim/input/csv_table.hpp"

#include <fstream>
#include <sstream>

namespace cs {

CsvTable CsvTable::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({path, 0, 0}, "", "cannot open file (does it exist and is it readable?)");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path);
}

CsvTable CsvTable::parse(const std::string& text, const std::string& name) {
  CsvTable t;
  t.file_ = name;
  std::vector<Row> records;
  Row cur{1, {}};
  std::string cell;
  bool quoted = false, any = false;
  int line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '#' && records.empty() && !any && cell.empty()) {
      // A comment line ahead of the header (what generated the file, and how).
      while (i < text.size() && text[i] != '\n') ++i;
      ++line;
      cur = Row{line, {}};
      continue;
    }
    if (c == '\0') throw InputError({name, line, 0}, "", "file is binary (NUL byte), not CSV text");
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          cell += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        cell += c;
      }
      continue;
    }
    switch (c) {
      case '"': quoted = true; any = true; break;
      case ',': cur.cells.push_back(std::move(cell)); cell.clear(); any = true; break;
      case '\r': break;
      case '\n':
        if (any || !cell.empty()) {
          cur.cells.push_back(std::move(cell));
          records.push_back(std::move(cur));
        }
        cell.clear();
        any = false;
        ++line;
        cur = Row{line, {}};
        break;
      default: cell += c; any = true;
    }
  }
  if (quoted) throw InputError({name, cur.line, 0}, "", "unterminated quoted field");
  if (any || !cell.empty()) {
    cur.cells.push_back(std::move(cell));
    records.push_back(std::move(cur));
  }
  if (records.empty()) throw InputError({name, 0, 0}, "", "file is empty; expected a header row");
  t.header_ = records.front().cells;
  for (std::size_t i = 0; i < t.header_.size(); ++i) t.index_[t.header_[i]] = i;
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].cells.size() != t.header_.size()) {
      throw InputError({name, records[r].line, 0}, "",
                       "row has " + std::to_string(records[r].cells.size()) + " cells, the header has " +
                           std::to_string(t.header_.size()));
    }
    t.rows_.push_back(std::move(records[r]));
  }
  return t;
}

std::optional<std::size_t> CsvTable::column(const std::string& n) const {
  const auto it = index_.find(n);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

void CsvTable::require_columns(const std::vector<std::string>& required) const {
  for (const auto& r : required) {
    if (!column(r)) throw InputError({file_, 1, 0}, r, "required column is missing from the header");
  }
}

const std::string& CsvTable::cell(const Row& row, const std::string& n) const {
  static const std::string kEmpty;
  const auto c = column(n);
  return c ? row.cells[*c] : kEmpty;
}

}  // namespace cs
