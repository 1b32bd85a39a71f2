// What the simulator asks of a GPU: how long one kernel takes. Every cost model (datasheet-derived or fitted
// from a calibration) answers through this interface; the replay never sees where the numbers came from,
// but every result reports it through `provenance()`.
#pragma once

#include <cstdint>
#include <string>

#include "sim/core/units.hpp"
#include "sim/hardware/dtype.hpp"

namespace cs {

/// C[m,n] = A[m,k] * B[k,n], `batch` times (a batched GEMM counts batch * 2mnk FLOP).
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  DType dtype = DType::bf16;
  std::int64_t batch = 1;
  [[nodiscard]] Flops flops() const noexcept {
    return Flops{2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
                 static_cast<double>(batch)};
  }
};

/// Fused (flash-style) attention over `batch` sequences; causal masks halve the useful FLOPs.
struct AttentionShape {
  std::int64_t batch = 1, heads = 1, kv_heads = 1, seq_q = 0, seq_kv = 0, head_dim = 128;
  bool causal = true;
  bool backward = false;  ///< the backward kernel does 2.5x the forward's matrix work
  DType dtype = DType::bf16;
  /// Useful FLOPs: forward 4*b*h*sq*skv*d (QK^T and PV), halved when causal; backward 2.5x that.
  [[nodiscard]] Flops flops() const noexcept;
};

/// Where a profile's numbers came from, printed beside every result that uses them.
struct Provenance {
  std::string profile;      ///< profile name, e.g. "h100-sxm"
  std::string kind;         ///< "datasheet" or "measured"
  std::string description;  ///< datasheet reference, or GPU/driver/CUDA/date of the calibration
};

class ComputeCostModel {
 public:
  virtual ~ComputeCostModel() = default;
  [[nodiscard]] virtual Time gemm(const GemmShape& s) const = 0;
  [[nodiscard]] virtual Time attention(const AttentionShape& s) const = 0;
  /// A bandwidth-bound kernel that reads and writes `bytes` in total (norms, activations, optimizer, casts).
  [[nodiscard]] virtual Time memory_bound(Bytes bytes) const = 0;
  [[nodiscard]] virtual const Provenance& provenance() const = 0;
};

}  // namespace cs
