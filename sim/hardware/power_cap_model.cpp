#include "sim/hardware/power_cap_model.hpp"

#include <algorithm>
#include <cmath>

namespace cs {

Watts PowerCapModel::power(const KernelLoad& load, double clock) const noexcept {
  return static_power + load.dynamic * std::pow(clock, power_exponent);
}

Watts PowerCapModel::mix_power(std::span<const KernelLoad> loads, double clock) const noexcept {
  double energy = 0.0, time = 0.0;
  for (const KernelLoad& l : loads) {
    const double t = l.at(clock).seconds();
    energy += t * power(l, clock).value();
    time += t;
  }
  return time > 0 ? Watts{energy / time} : static_power;
}

double PowerCapModel::sustained_clock(std::span<const KernelLoad> loads, Watts cap) const noexcept {
  const double held = cap.value() * held_fraction;
  // From the top down: the mixed power falls as the clock falls (every kernel's power does, and the
  // kernels that slow down are the power-hungry SM-bound ones).
  for (double f = max_clock_mhz; f > min_clock_mhz; f -= clock_step_mhz) {
    if (mix_power(loads, f / max_clock_mhz).value() <= held) return f / max_clock_mhz;
  }
  return min_clock_mhz / max_clock_mhz;
}

double PowerCapModel::busy_clock(Watts cap) const noexcept {
  const KernelLoad busy{Time::from_seconds(1e-3), clock_bound, busy_power};
  return sustained_clock(std::span<const KernelLoad>(&busy, 1), cap);
}

}  // namespace cs
