// The fitted models a calibration adds to a device profile (docs/profiles.md, "Measured sections"): GEMM
// and attention efficiency surfaces per format, latency-plus-bandwidth fits of bandwidth-bound kernels and
// of collectives (piecewise by message size, SimGrid-style), board power at three operating points, and
// the provenance of the calibration. Every section is optional; datasheet profiles have none.
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/hardware/compute_cost_model.hpp"
#include "sim/hardware/efficiency_surface.hpp"
#include "sim/hardware/power_cap_model.hpp"

namespace cs {

class InputNode;

/// GEMM time = launch + ideal / efficiency(m, n, k), where ideal is the time of the tile waves at peak:
/// ceil(tiles / sm_count) waves of sm_count tiles of 2 * tile_m * tile_n * k FLOPs (tile 0x0: no
/// quantisation, ideal = FLOPs / peak).
struct GemmFit {
  int tile_m = 0, tile_n = 0;
  Time launch;
  EfficiencySurface surface;  ///< dims: m, n, k; for 16-byte-aligned shapes (and all, without the next)
  /// Shapes with a misaligned leading dimension run other cuBLAS kernels (narrower loads). Their time is
  /// the aligned model's or that of a lower compute ceiling, whichever is longer:
  ///   max(ideal / efficiency_aligned, FLOPs / (peak * misaligned_caps[class])) / misaligned_surface
  /// with class 0 for 1-2-byte and class 1 for 4-8-byte alignment. Caps of 1 (peak) never bind: the aligned
  /// model divided by a correction surface of the misaligned shapes' own (the form the H200 fit keeps).
  /// Empty: aligned model for all shapes.
  std::vector<double> misaligned_caps;
  EfficiencySurface misaligned_surface;

  [[nodiscard]] Time time(const GemmShape& s, int sm_count, FlopRate peak) const;
  /// ideal (seconds) as defined above.
  [[nodiscard]] static double ideal_seconds(const GemmShape& s, int tile_m, int tile_n, int sm_count, FlopRate peak);
  /// The alignment class of the call's leading dimensions, whose least-aligned one sets the width of
  /// cuBLAS's loads: {1, 0} for 1- or 2-byte alignment, {0, 1} for 4 or 8 bytes, {0, 0} when all are
  /// 16-byte aligned. In GemmShape's terms the leading dimensions are k, k, m (A, B, C) for TN, n, k, n for
  /// NN and m, n, m for NT. (The H200 calibration shows bf16 GEMMs of >= 30 us at 45-120
  /// TFLOP/s with 2-byte alignment and 110-230 TFLOP/s with 4- or 8-byte alignment, against ~820 aligned.)
  [[nodiscard]] static std::vector<double> penalties(const GemmShape& s);
};

/// Fused attention time = launch + useful FLOPs / (peak * efficiency(batch * heads, seq, head_dim)).
struct AttentionFit {
  Time launch;
  EfficiencySurface surface;  ///< dims: batch * heads, sqrt(seq_q * seq_kv), head_dim

  [[nodiscard]] Time time(const AttentionShape& s, FlopRate peak) const;
  [[nodiscard]] static std::vector<double> sizes(const AttentionShape& s);
};

/// time = latency + bytes / bandwidth.
struct LinearCost {
  Time latency;
  Bandwidth bandwidth;
  [[nodiscard]] Time time(Bytes b) const { return latency + b / bandwidth; }
};

/// A collective's time by message size: the first segment whose `up_to` covers the size applies (the last
/// one beyond it).
struct CollectiveFit {
  std::string op;    ///< all_reduce, all_gather, reduce_scatter, all_to_all, send_recv
  int ranks = 1;
  std::string algo;  ///< NCCL_ALGO during the measurement ("auto" when unset)
  struct Segment {
    Bytes up_to;
    LinearCost cost;
  };
  std::vector<Segment> segments;
  [[nodiscard]] Time time(Bytes b) const;
};

struct MeasuredPower {
  Watts idle, compute, memory;  ///< idle, in a bf16 GEMM loop, in a copy loop
};

/// Where a measured profile came from, and how well its fits predict samples they were not fitted to.
struct CalibrationInfo {
  std::string gpu, driver, cuda, cublas, nccl, host, date, samples;
  double gemm_holdout_median = 0, gemm_holdout_p90 = 0;            ///< relative errors, 0.05 = 5%
  double attention_holdout_median = 0, attention_holdout_p90 = 0;
  int gemm_holdout_count = 0, attention_holdout_count = 0;
};

/// A YAML double-quoted scalar of `v` (quotes and backslashes escaped), as the profile writers emit text.
[[nodiscard]] std::string yaml_quoted(const std::string& v);

struct MeasuredFits {
  std::map<DType, GemmFit> gemm;  ///< TN, and any layout without a fit of its own
  /// NN and NT GEMMs where they were calibrated (profile key "bf16_nn", ...).
  std::map<std::pair<DType, GemmLayout>, GemmFit> gemm_layouts;
  std::map<DType, AttentionFit> attention_fwd, attention_bwd;  ///< FlashAttention-2 (samples of algo "flash")
  /// cuDNN's fused attention where it was calibrated (samples of algo "cudnn"; profile keys cudnn_attention_*_fit).
  std::map<DType, AttentionFit> cudnn_attention_fwd, cudnn_attention_bwd;
  /// The attention fits of `kernel` in one direction; cuDNN's fall back to the flash fits where there are none.
  [[nodiscard]] const std::map<DType, AttentionFit>& attention(FusedAttention kernel, bool backward) const noexcept {
    const auto& cudnn = backward ? cudnn_attention_bwd : cudnn_attention_fwd;
    if (kernel == FusedAttention::cudnn && !cudnn.empty()) return cudnn;
    return backward ? attention_bwd : attention_fwd;
  }
  std::optional<LinearCost> memory;  ///< streaming kernels (copy, add): what memory_bound() uses
  std::map<std::string, LinearCost> memory_ops;
  std::vector<CollectiveFit> collectives;
  std::optional<MeasuredPower> power;
  /// Present when the GEMM fits are at the highest clock and kernels are priced at the clock the power
  /// limit holds them to (sustained calibrations): power_cap_model.hpp.
  std::optional<PowerCapModel> power_cap;
  std::optional<CalibrationInfo> calibration;

  [[nodiscard]] bool empty() const noexcept {
    return gemm.empty() && gemm_layouts.empty() && attention_fwd.empty() && attention_bwd.empty() &&
           cudnn_attention_fwd.empty() && cudnn_attention_bwd.empty() && !memory && memory_ops.empty() &&
           collectives.empty() && !power && !power_cap &&
           !calibration;
  }
};

/// Reads the measured sections from a profile's root mapping (marking those keys read).
[[nodiscard]] MeasuredFits parse_measured_fits(const InputNode& root);
/// Writes the measured sections as YAML, in the form parse_measured_fits reads.
void write_measured_fits(std::ostream& out, const MeasuredFits& f);

}  // namespace cs
