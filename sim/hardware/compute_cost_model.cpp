#include "sim/hardware/compute_cost_model.hpp"

namespace cs {

Flops AttentionShape::flops() const noexcept {
  const double fwd = 4.0 * static_cast<double>(batch) * static_cast<double>(heads) * static_cast<double>(seq_q) *
                     static_cast<double>(seq_kv) * static_cast<double>(head_dim) * (causal ? 0.5 : 1.0);
  return Flops{backward ? 2.5 * fwd : fwd};
}

}  // namespace cs
