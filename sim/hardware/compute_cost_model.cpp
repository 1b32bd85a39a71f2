#include "sim/hardware/compute_cost_model.hpp"

namespace cs {

Flops AttentionShape::flops() const noexcept {
  const double fwd = 4.0 * static_cast<double>(batch) * static_cast<double>(heads) * static_cast<double>(seq_q) *
                     static_cast<double>(seq_kv) * static_cast<double>(head_dim) * (causal ? 0.5 : 1.0);
  return Flops{backward ? 2.5 * fwd : fwd};
}

}  // namespace cs

namespace cs {

std::string_view to_string(GemmLayout l) noexcept {
  switch (l) {
    case GemmLayout::tn: return "tn";
    case GemmLayout::nn: return "nn";
    case GemmLayout::nt: return "nt";
  }
  return "tn";
}

bool parse_gemm_layout(std::string_view s, GemmLayout& out) noexcept {
  for (const GemmLayout l : {GemmLayout::tn, GemmLayout::nn, GemmLayout::nt}) {
    if (s == to_string(l)) {
      out = l;
      return true;
    }
  }
  return false;
}

}  // namespace cs
