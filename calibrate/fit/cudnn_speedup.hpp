// cuDNN's fused attention against a profile's FlashAttention-2 fits: the speed-up a profile carries as
// attention_cudnn (device_profile.hpp), derived from published cuDNN timings of the same GPU (cuDNN's SDPA training
// benchmark, data/checks/cudnn_sdpa_h200.csv) as the median, per direction and head width, of the flash fit's time
// over cuDNN's at each published shape. Both are burst-clock figures (short timed loops), compared at the fit's
// highest clock.
#pragma once

#include <string>
#include <vector>

#include "sim/hardware/device_profile.hpp"

namespace cs::fit {

/// One published cuDNN timing: a causal, unwindowed 16-bit shape in one direction.
struct CudnnTiming {
  std::string shape;  ///< the benchmark's model name ("llama3.1", "dsv3")
  bool backward = false;
  std::int64_t batch = 0, seq = 0, heads = 0, kv_heads = 0, head_dim_qk = 0, head_dim_vo = 0;
  double ms = 0;
};

/// The causal, unwindowed bf16 rows of a cuDNN benchmark file in data/checks/cudnn_sdpa_*.csv's format (columns gpu,
/// shape, data_type, pass, batch, seq, heads, kv_heads, head_dim_qk, head_dim_vo, window, time_ms). Throws InputError
/// naming the file, line and column on a malformed row.
[[nodiscard]] std::vector<CudnnTiming> read_cudnn_timings(const std::string& path);

struct CudnnSpeedupRow {
  CudnnTiming timing;
  double flash_ms = 0;  ///< the profile's FlashAttention-2 fit at the same shape
};

struct CudnnSpeedupResult {
  AttentionCudnnSpeedup speedup;
  std::vector<CudnnSpeedupRow> rows;
};

/// The speed-up of `timings` over `profile`'s flash fits: medians of flash / cuDNN per direction at 128-wide heads
/// (FLOP-equivalent width <= 144) and at wider ones (the 192/128 heads, width 160). Throws std::invalid_argument
/// where the profile has no bf16 flash fits or a direction and width has no timing.
[[nodiscard]] CudnnSpeedupResult cudnn_speedup(const DeviceProfile& profile, const std::vector<CudnnTiming>& timings);

}  // namespace cs::fit
