// The analytic kernel cost model used by datasheet profiles (and, with fitted parameters, by measured ones):
//
//   GEMM:       the output is cut into tile_m x tile_n tiles, run in waves of sm_count tiles. One wave takes
//               2*tile_m*tile_n*k / (peak/sm_count * max_efficiency * k/(k+k_half)), so padding to whole
//               tiles and a partly filled last wave both cost time. The time is the larger of that and the
//               HBM time for reading A and B and writing C, plus a fixed launch cost.
//   attention:  useful FLOPs over peak * attention_efficiency, or HBM time for Q, K, V and O if larger.
//   streaming:  bytes over memory_bandwidth * memory_efficiency, plus a fixed kernel cost.
#pragma once

#include "sim/hardware/compute_cost_model.hpp"
#include "sim/hardware/device_profile.hpp"

namespace cs {

class RooflineCostModel final : public ComputeCostModel {
 public:
  explicit RooflineCostModel(DeviceProfile p) : p_(std::move(p)) {}
  [[nodiscard]] Time gemm(const GemmShape& s) const override;
  [[nodiscard]] Time attention(const AttentionShape& s) const override;
  [[nodiscard]] Time memory_bound(Bytes bytes) const override;
  [[nodiscard]] const Provenance& provenance() const override { return p_.provenance; }
  [[nodiscard]] const DeviceProfile& profile() const noexcept { return p_; }

 private:
  DeviceProfile p_;
};

}  // namespace cs
