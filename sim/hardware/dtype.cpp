#include "sim/hardware/dtype.hpp"

#include <array>
#include <utility>

namespace cs {
namespace {
constexpr std::array<std::pair<DType, std::string_view>, 7> kNames{{
    {DType::fp32, "fp32"}, {DType::tf32, "tf32"}, {DType::bf16, "bf16"}, {DType::fp16, "fp16"}, {DType::fp8, "fp8"},
    {DType::mxfp8, "mxfp8"}, {DType::fp4, "fp4"},
}};
}  // namespace

std::string_view to_string(DType t) noexcept {
  for (const auto& [d, n] : kNames) {
    if (d == t) return n;
  }
  return "?";
}

bool parse_dtype(std::string_view s, DType& out) noexcept {
  for (const auto& [d, n] : kNames) {
    if (n == s) {
      out = d;
      return true;
    }
  }
  return false;
}

}  // namespace cs
