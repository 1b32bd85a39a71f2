// Numeric formats used for training math, with their storage size.
#pragma once

#include <string>
#include <string_view>

namespace cs {

enum class DType { fp32, tf32, bf16, fp16, fp8 };

/// Bytes per element as stored in memory (tf32 is stored as fp32).
[[nodiscard]] constexpr double bytes_per_element(DType t) noexcept {
  switch (t) {
    case DType::fp32:
    case DType::tf32: return 4.0;
    case DType::bf16:
    case DType::fp16: return 2.0;
    case DType::fp8: return 1.0;
  }
  return 4.0;
}

[[nodiscard]] std::string_view to_string(DType t) noexcept;
/// Parses "fp32", "tf32", "bf16", "fp16", "fp8"; returns false for anything else.
[[nodiscard]] bool parse_dtype(std::string_view s, DType& out) noexcept;

}  // namespace cs
