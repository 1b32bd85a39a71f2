// What the power, reliability and cost models need from a simulated training run. The replay layer fills it:
// the step time, how each GPU spent the step, and the size of the job.
#pragma once

#include <optional>
#include <string>

#include "sim/core/units.hpp"
#include "sim/hardware/device_profile.hpp"

namespace cs {

/// Fractions of a step a GPU spends in each state, averaged over GPUs; they sum to 1.
/// compute: tensor-core bound kernels; memory: HBM-bound kernels; communication: waiting on or driving
/// collectives with no kernel of its own; idle: pipeline bubbles and host stalls.
struct StepStateFractions {
  double compute = 0.0;
  double memory = 0.0;
  double communication = 0.0;
  double idle = 0.0;
};

/// Fractions from the time a GPU spends in each state (any common unit); throws InputError when all are zero.
[[nodiscard]] StepStateFractions fractions_from_times(Time compute, Time memory, Time communication, Time idle);

/// Board power of one GPU in each state. Either measured (a calibration with NVML samples) or derived from the
/// datasheet TDP and idle power (see tdp_power_curve in power_model.hpp); `source` says which.
struct GpuPowerCurve {
  Watts compute;
  Watts memory;
  Watts communication;
  Watts idle;
  std::string source;
};

struct RunProfile {
  Time step_time;                 ///< simulated time of one training step, uncapped unless cap_in_step_time
  StepStateFractions fractions;   ///< how that step is spent
  double tokens_per_step = 0.0;   ///< global batch in tokens
  double token_budget = 0.0;      ///< tokens of the whole training run
  double parameter_count = 0.0;   ///< model parameters, for the checkpoint size
  GpuSpec gpu;                    ///< TDP and idle power (DeviceProfile.gpu)
  std::optional<GpuPowerCurve> measured_power;  ///< from a calibration, when it has NVML samples
  /// step_time already runs at the GPU power cap (a calibrated power-cap model priced every kernel at the clock
  /// the cap allows): the facility then caps the power curve but does not stretch the step a second time.
  bool cap_in_step_time = false;

  [[nodiscard]] double steps() const noexcept { return tokens_per_step > 0 ? token_budget / tokens_per_step : 0.0; }
};

/// Throws InputError when fractions are negative or do not sum to 1 (within 1e-6), or a size is not positive.
void validate(const RunProfile& run);

}  // namespace cs
