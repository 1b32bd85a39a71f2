// Fits the power-cap model (sim/hardware/power_cap_model.hpp) to a sustained calibration run: the GEMM+copy
// duty-cycle sweep gives the clock dependence of a GEMM's time (beta) and power (gamma, and the bf16
// tensor power), the copies alone give the memory power, and every sustained GEMM sample's clock and power
// give each format's tensor power. The GEMM samples are then normalised to the highest clock with the
// fitted beta, so the efficiency surfaces describe f_max and the model prices any clock.
#pragma once

#include <optional>
#include <string>

#include "sim/hardware/device_profile.hpp"
#include "sim/store/calibration_sample.hpp"

namespace cs::fit {

struct PowerCapFit {
  PowerCapModel model;
  std::string report;  ///< the fitted numbers and the points they came from, as Markdown
};

/// nullopt when `samples` hold no duty-cycle sweep (a burst run). `static_power` is the measured idle power.
/// Throws std::invalid_argument when the sweep is there but cannot be fitted.
[[nodiscard]] std::optional<PowerCapFit> fit_power_cap(const SamplesFile& samples, const DeviceProfile& base,
                                                       Watts static_power);

/// Splits each GEMM's dynamic power into what any running GEMM draws, its tensor-core part per format and
/// its HBM part (power_cap_model.hpp), by least squares over the GEMM samples timed alone in their steady
/// state (clocks "steady": calibrate/pytorch/gemm_check.py --settle-ms 250). Fewer than 50 such samples leave
/// `m` as it is. Appends what it fitted, and how well the old and new model place those samples' clocks, to
/// `report`.
void fit_steady_power(const SamplesFile& samples, const DeviceProfile& base, PowerCapModel& m, std::string& report);

/// t(f) / t(f_max) for a clock of `mhz`: 1 - beta + beta * f_max / mhz (1 for mhz <= 0: not recorded).
[[nodiscard]] double clock_factor(const PowerCapModel& m, double mhz);

}  // namespace cs::fit
