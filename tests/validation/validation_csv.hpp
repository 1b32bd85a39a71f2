// Validation rows written as CSV text in the column order validate expects, for tests that build rows by hand.
#pragma once

#include <initializer_list>
#include <map>
#include <string>

#include "sim/validation/validation.hpp"

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

/// A row every validation test can start from: GPT 1.3B (24 layers, h = 2,048, 16 heads) on 8 H100 SXM, TP 1 and
/// PP 1, 64 sequences of 2,048 tokens in micro-batches of 2, bf16, a measured step of 1.0 s.
inline Cells small_gpt_row() {
  return {{"row_id", "1"},          {"source", "test"},      {"hardware", "H100 SXM"}, {"gpu_count", "8"},
          {"model", "GPT 1.3B"},    {"num_layers", "24"},    {"hidden_size", "2048"},  {"num_heads", "16"},
          {"vocab_size", "51200"},  {"seq_len", "2048"},     {"tp", "1"},              {"pp", "1"},
          {"global_batch_seqs", "64"}, {"micro_batch", "2"}, {"precision", "bf16"},    {"meas_step_time_s", "1.0"}};
}

/// `base` with the cells of `set` written over it and the columns of `drop` emptied.
inline Cells edited(Cells base, const Cells& set, std::initializer_list<const char*> drop = {}) {
  for (const char* d : drop) base.erase(d);
  for (const auto& [k, v] : set) base[k] = v;
  return base;
}

}  // namespace cs::testing
