// A training framework's measured host costs as data: profiles/frameworks/NAME.yaml, named by a scenario's
// `training.framework` (docs/workload.md). A profile may build on another (`base:`) and states where each figure
// was measured. Applying one sets TrainingConfig's launch costs; keys the scenario sets itself win.
#pragma once

#include <string>
#include <vector>

#include "sim/input/param_table.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace cs {

struct FrameworkProfile {
  std::string name;         ///< the file's stem ("megatron-core-te-2025"), or its path
  std::string title;        ///< what it is, in words
  std::string measured_on;  ///< where its figures come from
  /// Idle GPU time after each operator, and the host's time per operator launch, when it launches eagerly
  /// (TrainingConfig::kernel_gap, host_launch_cost); both zero when the step is captured in CUDA graphs.
  Time kernel_gap = Time::zero();
  Time host_launch_cost = Time::zero();
  /// Host work per operator launch against eager PyTorch's (TrainingConfig::framework_host_factor) and how it
  /// applies (HostWork).
  double host_factor = 1.0;
  HostWork host_work = HostWork::per_kind;
  FrameworkHostCosts costs;
};

[[nodiscard]] const ParamTable<FrameworkProfile>& framework_profile_params();
/// Reads a framework profile file (its `base:` first, from the shipped ones or a path); throws InputError located
/// in the file.
[[nodiscard]] FrameworkProfile load_framework_profile(const std::string& path);
/// A shipped profile by name (profiles/frameworks/NAME.yaml) or a profile file by path; read once per process
/// and kept. Throws InputError naming the shipped ones when neither exists.
[[nodiscard]] const FrameworkProfile& find_framework_profile(const std::string& name_or_path);
/// The names of the shipped framework profiles, sorted.
[[nodiscard]] std::vector<std::string> shipped_framework_profiles();
/// What a scenario that names no framework runs: `cuda-graphs` (the step captured, no eager host; the other host
/// costs those of the measured hosts, for a scenario that sets training.host_launch_cost itself).
inline constexpr const char* kDefaultFramework = "cuda-graphs";
/// Sets `t`'s framework name, launch costs and host work from `f`.
void apply_framework(const FrameworkProfile& f, TrainingConfig& t);

}  // namespace cs
