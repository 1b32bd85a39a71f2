// The cost model of a measured profile: GEMMs and attention from the fitted efficiency surfaces
// (measured_fits.hpp), bandwidth-bound kernels from the fitted latency and bandwidth of streaming kernels.
// Formats or kernels the calibration did not cover fall back to the profile's roofline parameters, so a
// measured profile answers everything a datasheet one does.
#pragma once

#include "sim/hardware/compute_cost_model.hpp"
#include "sim/hardware/device_profile.hpp"
#include "sim/hardware/roofline_cost_model.hpp"

namespace cs {

class FittedCostModel final : public ComputeCostModel {
 public:
  explicit FittedCostModel(DeviceProfile p) : p_(std::move(p)), fallback_(p_) {}
  [[nodiscard]] Time gemm(const GemmShape& s) const override;
  [[nodiscard]] Time attention(const AttentionShape& s) const override;
  [[nodiscard]] Time memory_bound(Bytes bytes) const override;
  [[nodiscard]] const Provenance& provenance() const override { return p_.provenance; }

 private:
  DeviceProfile p_;
  RooflineCostModel fallback_;
};

}  // namespace cs
