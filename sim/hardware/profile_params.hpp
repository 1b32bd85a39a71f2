// The declarations of the hand-written keys of a device profile (docs/profiles.md; STYLE.md rule 10). The
// measured sections a calibration writes (gemm_fit, attention_*_fit, memory_*, collectives, measured_power,
// calibration) are declared as sections whose contents clustersim-fit owns (sim/hardware/measured_fits.cpp).
#pragma once

#include "sim/hardware/device_profile.hpp"
#include "sim/input/param_table.hpp"

namespace cs {

/// The profile file's table (built once; immutable, shared by threads).
[[nodiscard]] const ParamTable<DeviceProfile>& profile_params();
[[nodiscard]] const ParamSection& profile_schema();

}  // namespace cs
