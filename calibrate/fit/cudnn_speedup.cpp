#include "calibrate/fit/cudnn_speedup.hpp"

#include <algorithm>
#include <stdexcept>

#include "calibrate/fit/error_stats.hpp"
#include "sim/core/error.hpp"
#include "sim/hardware/fitted_cost_model.hpp"
#include "sim/input/csv_table.hpp"

namespace cs::fit {

std::vector<CudnnTiming> read_cudnn_timings(const std::string& path) {
  const CsvTable t = CsvTable::load(path);
  t.require_columns({"shape", "data_type", "pass", "batch", "seq", "heads", "kv_heads", "head_dim_qk", "head_dim_vo",
                     "window", "time_ms"});
  std::vector<CudnnTiming> out;
  for (const CsvTable::Row& row : t.rows()) {
    const auto fail = [&](const std::string& col, const std::string& why) {
      throw InputError({t.file(), row.line, 0}, col, why);
    };
    const auto number = [&](const char* col) {
      const std::string& v = t.cell(row, col);
      try {
        std::size_t used = 0;
        const double x = std::stod(v, &used);
        if (used == v.size()) return x;
      } catch (const std::exception&) {
      }
      fail(col, "not a number: \"" + v + "\"");
      return 0.0;
    };
    if (t.cell(row, "data_type") != "bfloat16" || number("window") != 0) continue;
    const auto whole = [&](const char* col) { return static_cast<std::int64_t>(number(col)); };
    CudnnTiming c;
    c.shape = t.cell(row, "shape");
    const std::string pass = t.cell(row, "pass");
    if (pass != "fwd" && pass != "bwd") fail("pass", "must be fwd or bwd, not \"" + pass + "\"");
    c.backward = pass == "bwd";
    c.batch = whole("batch"), c.seq = whole("seq"), c.heads = whole("heads"), c.kv_heads = whole("kv_heads");
    c.head_dim_qk = whole("head_dim_qk"), c.head_dim_vo = whole("head_dim_vo");
    c.ms = number("time_ms");
    if (c.ms <= 0 || c.batch <= 0 || c.seq <= 0 || c.heads <= 0) fail("time_ms", "sizes and time must be positive");
    out.push_back(c);
  }
  return out;
}

CudnnSpeedupResult cudnn_speedup(const DeviceProfile& profile, const std::vector<CudnnTiming>& timings) {
  if (!profile.fits.attention_fwd.count(DType::bf16) || !profile.fits.attention_bwd.count(DType::bf16)) {
    throw std::invalid_argument("profile \"" + profile.provenance.profile + "\" has no bf16 flash attention fits");
  }
  DeviceProfile flash_only = profile;
  flash_only.attention_cudnn = {};
  const FittedCostModel model(flash_only, std::nullopt);
  CudnnSpeedupResult r;
  std::vector<double> ratios[2][2];  // [backward][wide]
  for (const CudnnTiming& c : timings) {
    // The simulator's one head width for Q/K and V of different widths: the FLOP-equivalent (qk + v) / 2.
    const std::int64_t width = (c.head_dim_qk + c.head_dim_vo) / 2;
    const AttentionShape a{c.batch, c.heads, c.kv_heads, c.seq, c.seq, width, true, c.backward, DType::bf16};
    const double flash_ms = model.attention_load(a).at_max_clock.seconds() * 1e3;
    r.rows.push_back({c, flash_ms});
    ratios[c.backward][width > 144].push_back(flash_ms / c.ms);
  }
  for (const bool backward : {false, true}) {
    for (const bool wide : {false, true}) {
      if (ratios[backward][wide].empty()) {
        throw std::invalid_argument(std::string("no published cuDNN timing ") + (backward ? "backward" : "forward") +
                                    (wide ? " at 192/128-wide heads" : " at 128-wide heads"));
      }
    }
  }
  r.speedup.fwd_d128 = quantile(ratios[0][0], 0.5);
  r.speedup.fwd_d160 = quantile(ratios[0][1], 0.5);
  r.speedup.bwd_d128 = quantile(ratios[1][0], 0.5);
  r.speedup.bwd_d160 = quantile(ratios[1][1], 0.5);
  return r;
}

}  // namespace cs::fit
