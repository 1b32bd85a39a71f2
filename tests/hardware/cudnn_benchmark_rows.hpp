// The published cuDNN attention benchmarks in data/checks/cudnn_*.csv (one row per shape, pass and format: gpu,
// shape, data_type, pass, batch, seq, heads, kv_heads, head_dim_qk, head_dim_vo, window, time_ms), as the hardware
// tests read them, and the shape the simulator builds for a row.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/hardware/compute_cost_model.hpp"
#include "sim/input/csv_table.hpp"

namespace cs::testing {

struct SdpaRow {
  std::string gpu, shape, dtype, pass;
  std::int64_t batch = 0, seq = 0, heads = 0, kv_heads = 0, d_qk = 0, d_vo = 0, window = 0;
  double ms = 0;
};

/// Every row of data/checks/`file`.
inline std::vector<SdpaRow> cudnn_benchmark_rows(const std::string& file) {
  const CsvTable t = CsvTable::load(std::string(CS_SOURCE_DIR) + "/data/checks/" + file);
  std::vector<SdpaRow> rows;
  for (const CsvTable::Row& row : t.rows()) {
    const auto whole = [&](const char* name) { return std::stoll(t.cell(row, name)); };
    SdpaRow r{t.cell(row, "gpu"), t.cell(row, "shape"), t.cell(row, "data_type"), t.cell(row, "pass")};
    r.batch = whole("batch"), r.seq = whole("seq"), r.heads = whole("heads"), r.kv_heads = whole("kv_heads");
    r.d_qk = whole("head_dim_qk"), r.d_vo = whole("head_dim_vo"), r.window = whole("window");
    r.ms = std::stod(t.cell(row, "time_ms"));
    rows.push_back(r);
  }
  return rows;
}

/// The shape as the simulator builds it (layer_ops.cpp): one head width, the FLOP-equivalent (qk + v) / 2.
inline AttentionShape shape_of(const SdpaRow& r) {
  AttentionShape a{r.batch, r.heads, r.kv_heads, r.seq, r.seq, (r.d_qk + r.d_vo) / 2, true, r.pass == "bwd",
                   DType::bf16};
  a.window = r.window;
  return a;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace cs::testing
