// A cost model with one time per kind of kernel (and a record of the attention shapes asked), so that
// iteration costs can be added up by hand.
#pragma once

#include <vector>

#include "sim/hardware/compute_cost_model.hpp"

namespace cs::testing {

class FlatCostModel final : public ComputeCostModel {
 public:
  Time gemm_time = Time::us(1);
  Time attention_time = Time::us(2);
  Time memory_time = Time::ns(100);
  mutable std::vector<AttentionShape> attention_asked;

  [[nodiscard]] Time gemm(const GemmShape&) const override { return gemm_time; }
  [[nodiscard]] Time attention(const AttentionShape& s) const override {
    attention_asked.push_back(s);
    return attention_time;
  }
  [[nodiscard]] Time memory_bound(Bytes) const override { return memory_time; }
  [[nodiscard]] const Provenance& provenance() const override { return provenance_; }

 private:
  Provenance provenance_{"flat", "test", "one time per kind of kernel"};
};

}  // namespace cs::testing
