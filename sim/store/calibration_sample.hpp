// One calibration measurement and the run it came from, as plain data. The calibrator writes these to a
// samples file (CSV with `# key: value` provenance lines, see docs/calibration.md) on the GPU machine; the
// fitter imports that file into the SQLite store. Both sides use the reader and writer below, so the format
// is defined once.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "sim/core/units.hpp"

namespace cs {

/// A measured duration in seconds, kept as a double. Not Time: kernel timings of a few microseconds carry
/// sub-nanosecond digits (the samples files print 9 significant digits, "6.64238787e-06"), and rounding them to
/// Time's integer nanoseconds would move committed fits; the simulator's clock never sees one unconverted.
struct MeasuredTimeTag {};
using MeasuredTime = Quantity<MeasuredTimeTag>;  ///< seconds

/// The rate of moving `b` in a measured time `t`.
[[nodiscard]] inline Bandwidth operator/(Bytes b, MeasuredTime t) noexcept { return Bandwidth{b.value() / t.value()}; }

/// What was measured. Unused shape fields stay 0.
///   kind "gemm":       op "gemm", m, n, k, batch; dtype fp32/tf32/bf16/fp16/fp8
///   kind "attention":  op "fwd" or "bwd", batch, heads, seq, head_dim (causal, seq_q = seq_kv)
///   kind "memory":     op copy/add/layernorm/rmsnorm/softmax/adam/h2d/d2h, bytes = bytes read + written
///   kind "collective": op all_reduce/all_gather/reduce_scatter/all_to_all/send_recv, bytes = buffer size
///                      per rank, ranks, algo (NCCL_ALGO, "auto" when unset)
///   kind "power":      op idle/compute/memory, watts (median over the window), median = window length;
///                      op mix_gemm/mix_copy (sustained runs): one point of the GEMM+copy duty-cycle sweep, m,n,k
///                      the GEMM, bytes the copy's traffic per cycle, median the kernel's per-launch time
///
/// Columns added by format v2 (a v1 file reads with them empty or 0): the GEMM layout, whether the sample was
/// timed at burst clocks (each repetition after an idle gap) or sustained ones (back to back after a warm-up),
/// and the NVML SM clock, board power and temperature over the sample's timed window.
struct CalibrationSample {
  std::string kind;
  std::string op;
  std::string dtype;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::int64_t heads = 0, seq = 0, head_dim = 0;
  Bytes bytes;
  int ranks = 1;
  std::string algo;
  MeasuredTime median;  ///< median over repetitions of the per-launch time (column median_s)
  MeasuredTime p10;     ///< 10th and 90th percentiles: the spread kept beside the median (p10_s, p90_s)
  MeasuredTime p90;
  int reps = 0;
  Watts watts;            ///< board power: median over the timed window (0 when not recorded)
  std::string layout;     ///< gemm: cuBLAS ops of A and B, "tn" (v1 files: always), "nn" or "nt"
  /// "burst" (after an idle gap), "sustained" (back to back on a loaded GPU), "steady" (the kernel alone, back
  /// to back until the power regulator settled at its own clock), or empty (not recorded)
  std::string clocks;
  double sm_mhz = 0.0;    ///< median NVML SM clock over the timed window (0: not recorded)
  double temp_c = 0.0;    ///< highest GPU temperature over the timed window
  std::int64_t throttle = 0;  ///< NVML clock-event reasons OR'ed over the timed window (0x4: software power cap)
};

/// Where and with what a calibration ran. Keys of the samples file header: gpu, sm_count, memory_bytes,
/// sm_clock_mhz, mem_clock_mhz, driver, cuda, cublas, nccl, host, date, tool; anything else goes to `extra`.
struct CalibrationRun {
  std::string gpu_name;
  int sm_count = 0;
  Bytes memory;  ///< device memory (header key memory_bytes)
  int sm_clock_mhz = 0;
  int mem_clock_mhz = 0;
  std::string driver, cuda, cublas, nccl, host, date, tool;
  std::map<std::string, std::string> extra;
};

/// Writes the header (provenance lines and column names); call once, then write_sample per row.
void write_samples_header(std::ostream& out, const CalibrationRun& run);
void write_sample(std::ostream& out, const CalibrationSample& s);

/// Reads a samples file (several files may be concatenated: later provenance lines fill empty fields).
/// Throws InputError with the file and line of anything malformed.
struct SamplesFile {
  CalibrationRun run;
  std::vector<CalibrationSample> samples;
};
[[nodiscard]] SamplesFile read_samples(std::istream& in, const std::string& name);
[[nodiscard]] SamplesFile read_samples_file(const std::string& path);

}  // namespace cs
