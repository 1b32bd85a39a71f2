// A compute cost model with fixed kernel times, so that replay tests can be checked by hand.
#pragma once

#include "sim/hardware/compute_cost_model.hpp"

namespace cs::testing {

class FixedCostModel final : public ComputeCostModel {
 public:
  Time gemm_time = Time::ms(1);
  Time attention_forward = Time::ms(2);
  Time attention_backward = Time::ms(4);
  Time memory_time = Time::us(100);
  Time latency = Time::zero();  ///< a bandwidth-bound kernel's fixed time (none unless a test sets it)

  [[nodiscard]] Time gemm(const GemmShape&) const override { return gemm_time; }
  [[nodiscard]] Time attention(const AttentionShape& s) const override {
    return s.backward ? attention_backward : attention_forward;
  }
  [[nodiscard]] Time memory_bound(Bytes) const override { return memory_time; }
  [[nodiscard]] Time kernel_latency() const override { return latency; }
  [[nodiscard]] const Provenance& provenance() const override { return provenance_; }

 private:
  Provenance provenance_{"fixed", "test", "fixed kernel times"};
};

}  // namespace cs::testing
