// A device profile: a GPU's datasheet figures plus the parameters of its kernel cost models, loaded from a
// YAML file in profiles/ (format documented in docs/profiles.md). Datasheet profiles ship for common GPUs;
// the calibrator writes measured ones.
#pragma once

#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/hardware/compute_cost_model.hpp"
#include "sim/hardware/dtype.hpp"
#include "sim/hardware/measured_fits.hpp"

namespace cs {

class InputNode;

struct GpuSpec {
  std::string name;                 ///< e.g. "NVIDIA H100 SXM5 80GB"
  int sm_count = 0;
  Bytes memory;                     ///< HBM capacity
  Bandwidth memory_bandwidth;       ///< datasheet HBM bandwidth
  Watts tdp;                        ///< board power limit
  Watts idle_power;                 ///< power with no kernel running
  std::map<DType, FlopRate> peak;   ///< dense tensor-core (or CUDA-core for fp32) peak per format

  /// Peak for `t`; throws InputError-free std::out_of_range when the GPU lacks the format.
  [[nodiscard]] FlopRate peak_for(DType t) const;
};

/// Parameters of the analytic GEMM model (see RooflineCostModel): tile and wave quantisation times a
/// size-dependent efficiency that rises with k as k / (k + k_half).
struct GemmModelParams {
  double max_efficiency = 0.8;  ///< fraction of peak a huge, well-shaped GEMM reaches
  /// Per-format overrides of max_efficiency (fp8 GEMMs reach a smaller fraction of their doubled peak).
  std::map<DType, double> max_efficiency_by_dtype;
  [[nodiscard]] double efficiency_for(DType t) const {
    const auto it = max_efficiency_by_dtype.find(t);
    return it == max_efficiency_by_dtype.end() ? max_efficiency : it->second;
  }
  int tile_m = 128;
  int tile_n = 256;
  double k_half = 128.0;        ///< k at which the k-efficiency factor is one half
  Time launch = Time::ns(4000); ///< fixed per-kernel cost: launch, prologue and epilogue
};

/// Fused attention in fp8 against 16-bit, forward + backward time of 16-bit over fp8's, at two head widths (the
/// FLOP-equivalent width of AttentionShape::head_dim: 128, and 160 as DeepSeek-V3's 192/128-wide heads), per
/// scaling; interpolated in width between them and held outside. Zero: not measured (priced as 16-bit).
struct AttentionFp8Speedup {
  double fp8_d128 = 0, fp8_d160 = 0, mxfp8_d128 = 0, mxfp8_d160 = 0;
  /// Whether the profile lists the rates of `dtype`'s scaling (fp8 or mxfp8), whatever they are.
  [[nodiscard]] bool measured(DType dtype) const noexcept;
  /// The speed-up for a kernel of `head_dim` in `dtype` (fp8 or mxfp8); 1 where the profile has none.
  [[nodiscard]] double at(DType dtype, std::int64_t head_dim) const noexcept;
};

/// cuDNN's fused attention against FlashAttention-2 on this GPU: FlashAttention-2's time over cuDNN's, forward and
/// backward, at 128-wide heads and at DeepSeek-V3's 192/128-wide ones (FLOP-equivalent width 160); interpolated in
/// width between them and held outside. What a cuDNN kernel costs where the profile has no cuDNN fits of its own
/// (MeasuredFits::cudnn_attention_*): the flash fit, or attention_efficiency, over this. Zero: not measured.
struct AttentionCudnnSpeedup {
  double fwd_d128 = 0, bwd_d128 = 0, fwd_d160 = 0, bwd_d160 = 0;
  [[nodiscard]] bool measured() const noexcept { return fwd_d128 > 0 && bwd_d128 > 0 && fwd_d160 > 0 && bwd_d160 > 0; }
  /// The speed-up of the `backward` or forward kernel at `head_dim`; 1 where the profile has none.
  [[nodiscard]] double at(bool backward, std::int64_t head_dim) const noexcept;
};

struct DeviceProfile {
  GpuSpec gpu;
  Provenance provenance;
  GemmModelParams gemm;
  double attention_efficiency = 0.6;  ///< fraction of bf16 peak that fused attention reaches
  AttentionFp8Speedup attention_fp8;  ///< fp8 attention's measured speed-up (none: priced as 16-bit)
  AttentionCudnnSpeedup attention_cudnn;  ///< cuDNN's fused attention over FlashAttention-2 (none: priced as it)
  double memory_efficiency = 0.85;    ///< fraction of datasheet HBM bandwidth that streaming kernels reach
  Time kernel_overhead = Time::ns(3000);  ///< fixed cost of any other kernel
  MeasuredFits fits;  ///< fitted models of a measured profile (empty for datasheet profiles)

  /// "datasheet" or "measured", as every output that uses the profile prints it.
  [[nodiscard]] bool measured() const noexcept { return provenance.kind == "measured"; }
};

/// Parses a profile file. Throws InputError with the file, line and key of anything wrong.
[[nodiscard]] DeviceProfile load_device_profile(const std::string& path);
/// Resolves `name_or_path`: an existing file is loaded as is; otherwise `profiles/<name>.yaml` in the data
/// directory. Throws InputError listing the shipped profiles when neither exists.
[[nodiscard]] DeviceProfile find_device_profile(const std::string& name_or_path);
/// Names of the profiles shipped in the data directory.
[[nodiscard]] std::vector<std::string> shipped_profiles();

/// Writes `p` as a profile file (format_version 2) that load_device_profile reads back to the same values.
void write_device_profile(std::ostream& out, const DeviceProfile& p);

/// The cost model a profile describes: the fitted model (FittedCostModel) where the profile has measured
/// fits, the analytic roofline (RooflineCostModel) otherwise.
/// `power_cap` (a user's lower board limit) applies where the profile has a power-cap model.
[[nodiscard]] std::unique_ptr<ComputeCostModel> make_cost_model(const DeviceProfile& profile,
                                                                std::optional<Watts> power_cap = std::nullopt);

}  // namespace cs
