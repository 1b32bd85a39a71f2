// How kernel time and board power follow the SM clock when the board's power limit holds the clock down:
// one calibrated model gives both the sustained speed of a kernel mix and its power (docs/calibration.md,
// "Sustained clocks"). A Hopper board at its limit (700 W on an H200) lowers the SM clock until the power
// averaged over the recent past fits under the limit; HBM's clock stays put.
//
//   time:   t(f) = t_max * (1 - beta + beta * f_max / f)        beta: the share of the time that scales with
//                                                               the SM clock (1: fully SM-bound, 0: HBM-bound)
//   power:  P(f) = P_static + P_dyn * (f / f_max)^gamma          P_dyn: the kernel's dynamic power at f_max
//
// A mix of kernels run back to back draws the time-weighted mean of their powers; the clock settles at the
// highest step (15 MHz on Hopper) at which that mean fits under the limit:
//   P_mix(f) = sum_i t_i(f) P_i(f) / sum_i t_i(f) <= cap.
// A GEMM's dynamic power at f_max is what any running GEMM kernel draws (SMs issuing, caches and
// crossbar busy), plus a part proportional to how busy it keeps the tensor cores, plus one proportional to the
// HBM bandwidth its operands take:
//   P_dyn = active_power + tensor_power[format] * (FLOPs / t_max) / peak[format] + memory_power * (bytes / t_max) / peak_bw,
// and a bandwidth-bound kernel's to the HBM bandwidth it moves, P_dyn = memory_power * (bytes / t) / peak_bw,
// with beta = 0 (its time does not follow the SM clock). The split comes from GEMMs measured alone in their
// steady state (calibrate/fit/power_cap_fit.hpp); a profile without that split has active_power 0 and
// tensor power alone.
#pragma once

#include <map>
#include <span>

#include "sim/core/units.hpp"
#include "sim/hardware/dtype.hpp"

namespace cs {

/// One kernel as the power-cap model sees it: its time at the highest clock, the share of that time that
/// scales with the SM clock, and its dynamic power at the highest clock.
struct KernelLoad {
  Time at_max_clock;
  double clock_bound = 0.0;  ///< beta in [0, 1]
  Watts dynamic;             ///< P_dyn at f_max (above the static power)

  /// Time at `clock`, a fraction of the highest clock in (0, 1]: t_max * (1 - beta + beta / clock).
  [[nodiscard]] Time at(double clock) const noexcept {
    if (clock_bound == 0.0 || clock >= 1.0) return at_max_clock;
    return Time::ceil_seconds(at_max_clock.seconds() * (1.0 - clock_bound + clock_bound / clock));
  }
};

struct PowerCapModel {
  double max_clock_mhz = 1980;  ///< f_max: the clock of an unthrottled board
  double min_clock_mhz = 345;   ///< the lowest clock the regulator goes to (an idle H200 reads 345 MHz)
  double clock_step_mhz = 15;   ///< clocks move in these steps
  double clock_bound = 1.0;     ///< beta of GEMMs and attention
  double power_exponent = 2.0;  ///< gamma
  Watts static_power;           ///< P_static: the measured idle power
  Watts power_limit;            ///< the limit the board enforces (700 W on an H200)
  /// The power the regulator holds at the limit, as a fraction of it (NVML reads ~0.99 at 700 W).
  double held_fraction = 1.0;
  std::map<DType, Watts> tensor_power;  ///< P_dyn at f_max of a kernel at 100% of the format's datasheet peak
  /// P_dyn at f_max of a GEMM or attention kernel that keeps no tensor core busy (the intercept of the
  /// steady-state fit; 0 in profiles fitted before it).
  Watts active_power;
  Watts memory_power;                   ///< P_dyn of a streaming kernel at the datasheet HBM bandwidth
  /// P_dyn of the load that keeps a training GPU busy (the calibration's bf16 GEMM stream): a kernel priced
  /// on its own runs no faster than on a GPU so loaded (busy_clock()).
  Watts busy_power;

  /// A board's power drawing `load` at `clock` (a fraction of f_max).
  [[nodiscard]] Watts power(const KernelLoad& load, double clock) const noexcept;
  /// Time-weighted mean power of `loads` run back to back at `clock`.
  [[nodiscard]] Watts mix_power(std::span<const KernelLoad> loads, double clock) const noexcept;
  /// The clock (fraction of f_max) `loads` run at back to back under a limit of `cap` (the board's own
  /// when not given): the highest clock step whose mixed power fits, at least the lowest clock. O(steps * n).
  [[nodiscard]] double sustained_clock(std::span<const KernelLoad> loads, Watts cap) const noexcept;
  [[nodiscard]] double sustained_clock(std::span<const KernelLoad> loads) const noexcept {
    return sustained_clock(loads, power_limit);
  }
  /// The clock of a GPU kept busy by the busy_power load under `cap`.
  [[nodiscard]] double busy_clock(Watts cap) const noexcept;
};

}  // namespace cs
