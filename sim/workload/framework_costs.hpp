// The host costs of a training framework beyond its per-operator launch (TrainingConfig::host_launch_cost): what a
// grouped operator's further kernels and a merged schedule's nodes cost the host, and the host they were measured
// on. Values come from a framework profile (profiles/frameworks/*.yaml, framework_profile.hpp), never from here.
#pragma once

#include "sim/core/units.hpp"

namespace cs {

struct FrameworkHostCosts {
  /// Host time per further kernel of a grouped operator launched from a native (C++) loop, as Transformer Engine's
  /// GroupedLinear (one cuBLAS GEMM per local expert) and split_quantize (per-expert casts) launch them.
  Time native_gemm_launch = Time::zero();
  Time native_kernel_launch = Time::zero();
  /// The most a grouped GEMM's further GEMM costs the host in a framework whose host work per operator exceeds
  /// eager PyTorch's (HostWork::per_kind: native_gemm_launch times the factor, up to this).
  Time grouped_gemm_launch = Time::zero();
  /// Host time a merged forward-backward schedule adds per schedule-node call, with and without the dispatcher's
  /// host synchronisation.
  Time schedule_node_host = Time::zero();
  Time schedule_node_host_synced = Time::zero();
  /// The hosts these costs (and host_launch_cost) were measured on, on NodeSpec::host_linear_forward's yardstick
  /// (one torch.nn.Linear forward): a node's own figure scales every host cost by its ratio to this one. Zero: not
  /// known, every node priced as the measured hosts.
  Time calibration_host_linear_forward = Time::zero();
};

}  // namespace cs
