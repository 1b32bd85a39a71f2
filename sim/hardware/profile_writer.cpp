// write_device_profile: the inverse of load_device_profile, used by the calibrator to export measured
// profiles. Times are written in whole nanoseconds and rates with enough digits to read back exactly
// enough for the cost model (relative error below 1e-9).
#include <cstdio>
#include <ostream>

#include "sim/hardware/device_profile.hpp"

namespace cs {
namespace {

std::string fixed(double v, const char* unit, int decimals = 3) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f%s", decimals, v, unit);
  return b;
}

}  // namespace

void write_device_profile(std::ostream& out, const DeviceProfile& p) {
  out << "format_version: 2\nname: " << p.provenance.profile << "\nsource: " << p.provenance.kind
      << "\nsource_ref: " << yaml_quoted(p.provenance.description) << "\ngpu:\n  name: " << yaml_quoted(p.gpu.name)
      << "\n  sm_count: " << p.gpu.sm_count << "\n  memory: " << fixed(p.gpu.memory.value(), "B", 0)
      << "\n  memory_bandwidth: " << fixed(p.gpu.memory_bandwidth.value() * 1e-9, "GB/s", 6)
      << "\n  tdp: " << fixed(p.gpu.tdp.value(), "W", 3) << "\n  idle_power: " << fixed(p.gpu.idle_power.value(), "W", 3)
      << "\n  peak:\n";
  for (const auto& [t, r] : p.gpu.peak) out << "    " << to_string(t) << ": " << fixed(r.value() * 1e-12, "TFLOP/s", 6) << "\n";
  out << "gemm:\n  max_efficiency: " << p.gemm.max_efficiency << "\n  tile_m: " << p.gemm.tile_m
      << "\n  tile_n: " << p.gemm.tile_n << "\n  k_half: " << p.gemm.k_half << "\n  launch: " << p.gemm.launch.count_ns()
      << "ns\nattention_efficiency: " << p.attention_efficiency << "\nmemory_efficiency: " << p.memory_efficiency
      << "\nkernel_overhead: " << p.kernel_overhead.count_ns() << "ns\n";
  if (const AttentionCudnnSpeedup& c = p.attention_cudnn; c.measured()) {
    out << "attention_cudnn: {fwd_d128: " << c.fwd_d128 << ", bwd_d128: " << c.bwd_d128 << ", fwd_d160: " << c.fwd_d160
        << ", bwd_d160: " << c.bwd_d160 << "}\n";
  }
  write_measured_fits(out, p.fits);
}

}  // namespace cs
