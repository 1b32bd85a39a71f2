// Numeric formats used for training math, with their storage size.
#pragma once

#include <string>
#include <string_view>

namespace cs {

/// fp8 is E4M3/E5M2 with one fp32 scale per tensor (Transformer Engine's delayed and current scaling).
/// mxfp8 is MXFP8 (Blackwell's block-scaled fp8): E4M3 values with one E8M0 scale per 32 elements, which the
/// tensor cores apply; its GEMM kernels run at their own rate (max_efficiency_by_dtype.mxfp8).
/// fp4 is NVFP4 (Blackwell): E2M1 values with one E4M3 scale per 16 elements and a per-tensor fp32 scale.
enum class DType { fp32, tf32, bf16, fp16, fp8, mxfp8, fp4 };

/// Bytes per element as stored in memory (tf32 is stored as fp32).
[[nodiscard]] constexpr double bytes_per_element(DType t) noexcept {
  switch (t) {
    case DType::fp32:
    case DType::tf32: return 4.0;
    case DType::bf16:
    case DType::fp16: return 2.0;
    case DType::fp8: return 1.0;
    case DType::mxfp8: return 1.0 + 1.0 / 32.0;  // 8-bit values and a 1-byte scale per 32-element block
    case DType::fp4: return 0.5 + 1.0 / 16.0;  // 4-bit values and a 1-byte scale per 16-element block
  }
  return 4.0;
}

/// Formats whose GEMMs run on quantised copies of 16-bit tensors (Transformer Engine's fp8 and NVFP4 recipes):
/// attention and the other non-GEMM math stay in bf16, and every GEMM input is cast first.
[[nodiscard]] constexpr bool is_quantized(DType t) noexcept { return t == DType::fp8 || t == DType::mxfp8 || t == DType::fp4; }

[[nodiscard]] std::string_view to_string(DType t) noexcept;
/// Parses "fp32", "tf32", "bf16", "fp16", "fp8", "mxfp8", "fp4"; returns false for anything else.
[[nodiscard]] bool parse_dtype(std::string_view s, DType& out) noexcept;

}  // namespace cs
