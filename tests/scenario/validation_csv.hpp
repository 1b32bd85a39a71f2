// Validation rows written as CSV text in the column order validate expects, for tests that build rows by hand.
#pragma once

#include <initializer_list>
#include <map>
#include <string>

#include "sim/scenario/validation.hpp"

namespace cs::testing {

using Cells = std::map<std::string, std::string>;

/// The header line of validation_columns().
inline std::string csv_header() {
  std::string h;
  for (const auto& c : validation_columns()) h += (h.empty() ? "" : ",") + c;
  return h + "\n";
}

/// One CSV row with the given cells set (by column name) and the rest empty.
inline std::string csv_row(const Cells& cells) {
  std::string r;
  bool first = true;
  for (const auto& c : validation_columns()) {
    if (!first) r += ",";
    first = false;
    const auto it = cells.find(c);
    if (it != cells.end()) r += "\"" + it->second + "\"";
  }
  return r + "\n";
}

/// `base` with the cells of `set` written over it and the columns of `drop` emptied.
inline Cells edited(Cells base, const Cells& set, std::initializer_list<const char*> drop = {}) {
  for (const char* d : drop) base.erase(d);
  for (const auto& [k, v] : set) base[k] = v;
  return base;
}

}  // namespace cs::testing
