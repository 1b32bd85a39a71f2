// The cost model of a measured profile: GEMMs and attention from the fitted efficiency surfaces
// (measured_fits.hpp), bandwidth-bound kernels from the fitted latency and bandwidth of streaming kernels.
// Formats or kernels the calibration did not cover fall back to the profile's roofline parameters, so a
// measured profile answers everything a datasheet one does. A datasheet profile with a power-cap model (its
// figures from published measurements) is priced here too: its roofline rates at the highest clock, slowed to
// the clock its power limit holds.
#pragma once

#include <optional>

#include "sim/hardware/compute_cost_model.hpp"
#include "sim/hardware/device_profile.hpp"
#include "sim/hardware/roofline_cost_model.hpp"

namespace cs {

class FittedCostModel final : public ComputeCostModel {
 public:
  /// `power_cap`: a user's lower board limit (facility.power.gpu_power_cap); the board's own otherwise.
  explicit FittedCostModel(DeviceProfile p, std::optional<Watts> power_cap = std::nullopt)
      : p_(std::move(p)),
        fallback_(p_),
        cap_(power_cap),
        datasheet_rates_(p_.provenance.kind == "datasheet" && p_.fits.power_cap.has_value()) {}
  /// GEMMs and attention of a profile with a power-cap model: the time back to back at the clock the limit
  /// holds this kernel alone to; without one, the fitted time as measured.
  [[nodiscard]] Time gemm(const GemmShape& s) const override;
  [[nodiscard]] Time attention(const AttentionShape& s) const override;
  [[nodiscard]] Time memory_bound(Bytes bytes) const override;
  [[nodiscard]] KernelLoad gemm_load(const GemmShape& s) const override;
  [[nodiscard]] KernelLoad attention_load(const AttentionShape& s) const override;
  [[nodiscard]] KernelLoad memory_load(Bytes bytes) const override;
  [[nodiscard]] double sustained_clock(std::span<const KernelLoad> loads) const override;
  [[nodiscard]] const Provenance& provenance() const override { return p_.provenance; }

 private:
  [[nodiscard]] Time alone(const KernelLoad& load) const;
  DeviceProfile p_;
  RooflineCostModel fallback_;
  std::optional<Watts> cap_;
  /// A datasheet profile with a power-cap model and no fitted surface (profiles/b200.yaml): its published
  /// GEMM and attention rates are priced as the highest clock's and slowed by the power-cap model like fits.
  bool datasheet_rates_;
};

}  // namespace cs
