// What the simulator asks of a GPU: how long one kernel takes. Every cost model (datasheet-derived or fitted
// from a calibration) answers through this interface; the replay never sees where the numbers came from,
// but every result reports it through `provenance()`.
#pragma once

#include <cstdint>
#include <string>
#include <span>
#include <string_view>

#include "sim/core/units.hpp"
#include "sim/hardware/dtype.hpp"
#include "sim/hardware/power_cap_model.hpp"

namespace cs {

/// Which of a linear layer's three GEMMs this is, named by the cuBLAS (column-major) call PyTorch makes
/// for it: tn the forward y = x W^T, nn the input gradient dX = dY W, nt the weight gradient dW = dY^T X.
/// On an H200 the same sizes run at different speeds in the three (docs/calibration.md); fp8 GEMMs run TN
/// only on Hopper (Transformer Engine transposes the operands first), so they are priced as TN.
enum class GemmLayout { tn, nn, nt };

[[nodiscard]] std::string_view to_string(GemmLayout l) noexcept;
/// Parses "tn", "nn", "nt"; returns false for anything else.
[[nodiscard]] bool parse_gemm_layout(std::string_view s, GemmLayout& out) noexcept;

/// C[m,n] = A[m,k] * B[k,n], `batch` times (a batched GEMM counts batch * 2mnk FLOP).
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  DType dtype = DType::bf16;
  std::int64_t batch = 1;
  GemmLayout layout = GemmLayout::tn;
  /// The shape of a cuBLAS call of `layout` with column-major sizes (m, n, k), as the calibrator and
  /// PyTorch's check set record them, in this struct's terms: the workload's input gradient (m tokens,
  /// n = in features, k = out features) is cuBLAS's NN call with m and n swapped; TN (symmetric in m and n)
  /// and NT map as they are.
  [[nodiscard]] static GemmShape from_cublas(std::int64_t m, std::int64_t n, std::int64_t k, DType t, GemmLayout l,
                                             std::int64_t batch = 1) noexcept {
    return l == GemmLayout::nn ? GemmShape{n, m, k, t, batch, l} : GemmShape{m, n, k, t, batch, l};
  }
  [[nodiscard]] Flops flops() const noexcept {
    return Flops{2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
                 static_cast<double>(batch)};
  }
};

/// Which fused attention kernel family runs: FlashAttention-2 (PyTorch's SDPA flash backend, the framework's
/// own flash-attn) or cuDNN's fused attention (Transformer Engine's FusedAttention, which TE selects over
/// FlashAttention on Hopper and later GPUs). A profile may carry fits of each; the cuDNN kernel falls back to the
/// flash fits where the profile has none of its own.
enum class FusedAttention { flash, cudnn };

[[nodiscard]] std::string_view to_string(FusedAttention k) noexcept;
/// Parses "flash", "cudnn"; returns false for anything else.
[[nodiscard]] bool parse_fused_attention(std::string_view s, FusedAttention& out) noexcept;

/// Fused (flash-style) attention over `batch` sequences; causal masks halve the useful FLOPs.
struct AttentionShape {
  std::int64_t batch = 1, heads = 1, kv_heads = 1, seq_q = 0, seq_kv = 0, head_dim = 128;
  bool causal = true;
  bool backward = false;  ///< the backward kernel does 2.5x the forward's matrix work
  DType dtype = DType::bf16;
  /// Attention itself in fp8 (Transformer Engine's fp8_dot_product_attention; `dtype` fp8 or mxfp8 says which
  /// scaling): priced at the profile's measured speed-up over 16-bit (DeviceProfile::attention_fp8). Otherwise
  /// flash attention runs in 16-bit even in fp8 and fp4 training recipes.
  bool fp8 = false;
  /// Causal sliding window: each query attends to itself and the window - 1 keys before it (0: no window).
  std::int64_t window = 0;
  FusedAttention kernel = FusedAttention::flash;
  /// Useful FLOPs: forward 4*b*h*sq*skv*d (QK^T and PV), halved when causal, or over the band's query-key
  /// pairs when windowed; backward 2.5x that.
  [[nodiscard]] Flops flops() const noexcept;
  /// Whether a window restricts the keys (a window at least as long as the keys does not).
  [[nodiscard]] bool windowed() const noexcept { return causal && window > 0 && window < seq_kv; }
  /// The shape whose tiles a windowed kernel works like: a flash kernel visits only the key tiles inside the
  /// band, about 2w keys around each query tile, so a band over s tokens runs like causal attention over s/2w
  /// sequences of 2w tokens (the same w query-key pairs per query). Cost models take the efficiency of this
  /// shape and the FLOPs of the band (window_attention_study.py measures both on the H200). `min_len`: the
  /// shortest sequence a cost model knows the kernel at; a shorter block is priced as one of that length, with
  /// its FLOPs (run 14: a 128-token band cost what 512-token causal blocks cost, not 256-token ones).
  /// Unwindowed shapes return themselves.
  [[nodiscard]] AttentionShape tile_equivalent(std::int64_t min_len = 0) const noexcept;
};

/// Where a profile's numbers came from, printed beside every result that uses them.
struct Provenance {
  std::string profile;      ///< profile name, e.g. "h100-sxm"
  std::string kind;         ///< "datasheet" or "measured"
  std::string description;  ///< datasheet reference, or GPU/driver/CUDA/date of the calibration
};

/// Answers, per kernel, how long it takes. Models with a power-cap model (power_cap_model.hpp) price each
/// kernel run back to back on its own at the clock the board's power limit holds it to; a mix of kernels
/// (a layer's forward, say) runs at the clock its mixed power allows, which `*_load` and `sustained_clock`
/// let the replay find. Models without one run at a fixed clock: loads with no clock dependence, clock 1.
class ComputeCostModel {
 public:
  virtual ~ComputeCostModel() = default;
  [[nodiscard]] virtual Time gemm(const GemmShape& s) const = 0;
  [[nodiscard]] virtual Time attention(const AttentionShape& s) const = 0;
  /// A bandwidth-bound kernel that reads and writes `bytes` in total (norms, activations, optimizer, casts).
  [[nodiscard]] virtual Time memory_bound(Bytes bytes) const = 0;
  /// The fixed part of one bandwidth-bound kernel's time (its launch, ramp and drain: the memory fit's latency),
  /// which a grouped operator's further kernels pay each (one per local expert).
  [[nodiscard]] virtual Time kernel_latency() const { return memory_bound(Bytes{0.0}); }
  [[nodiscard]] virtual KernelLoad gemm_load(const GemmShape& s) const { return {gemm(s), 0.0, Watts{0.0}}; }
  [[nodiscard]] virtual KernelLoad attention_load(const AttentionShape& s) const {
    return {attention(s), 0.0, Watts{0.0}};
  }
  [[nodiscard]] virtual KernelLoad memory_load(Bytes bytes) const { return {memory_bound(bytes), 0.0, Watts{0.0}}; }
  /// The clock, as a fraction of the highest, at which `loads` run back to back.
  [[nodiscard]] virtual double sustained_clock(std::span<const KernelLoad> /*loads*/) const { return 1.0; }
  [[nodiscard]] virtual const Provenance& provenance() const = 0;
};

}  // namespace cs
