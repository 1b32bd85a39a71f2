#include "sim/hardware/fitted_cost_model.hpp"

#include <algorithm>

namespace cs {

KernelLoad FittedCostModel::gemm_load(const GemmShape& s) const {
  Time t;
  const auto l =
      s.layout == GemmLayout::tn ? p_.fits.gemm_layouts.end() : p_.fits.gemm_layouts.find({s.dtype, s.layout});
  const auto it = p_.fits.gemm.find(s.dtype);
  if (l != p_.fits.gemm_layouts.end())
    t = l->second.time(s, p_.gpu.sm_count, p_.gpu.peak_for(s.dtype));
  else if (it != p_.fits.gemm.end())
    t = it->second.time(s, p_.gpu.sm_count, p_.gpu.peak_for(s.dtype));
  else if (datasheet_rates_)
    t = fallback_.gemm(s);  // the published rates, taken as the highest clock's
  else
    return {fallback_.gemm(s), 0.0, Watts{0.0}};
  const auto& pc = p_.fits.power_cap;
  if (!pc || t <= Time::zero() || !pc->tensor_power.count(DType::bf16)) return {t, 0.0, Watts{0.0}};
  // Dynamic power in proportion to the tensor-core rate at f_max (power_cap_model.hpp); a format the
  // calibration did not measure draws what bf16 draws at the same share of its peak.
  const auto tp = pc->tensor_power.count(s.dtype) ? pc->tensor_power.at(s.dtype) : pc->tensor_power.at(DType::bf16);
  const double busy = s.flops().value() / t.seconds() / p_.gpu.peak_for(s.dtype).value();
  // Operands read once and the 16-bit result written once: the least HBM traffic the GEMM can have.
  const double in = bytes_per_element(s.dtype), out = s.dtype == DType::fp32 ? 4.0 : 2.0;
  const Bytes moved{static_cast<double>(s.batch) *
                    (in * static_cast<double>(s.m * s.k + s.k * s.n) + out * static_cast<double>(s.m * s.n))};
  const double hbm = pc->active_power.value() > 0 ? moved / t / p_.gpu.memory_bandwidth : 0.0;
  return {t, pc->clock_bound, pc->active_power + tp * busy + pc->memory_power * hbm};
}

KernelLoad FittedCostModel::attention_load(const AttentionShape& s) const {
  // Flash attention's fits are 16-bit's; fp8 attention is priced from them (as in RooflineCostModel).
  AttentionShape a = s;
  if (is_quantized(a.dtype) || a.dtype == DType::fp32 || a.dtype == DType::tf32) a.dtype = DType::bf16;
  const auto& fits = p_.fits.attention(a.kernel, a.backward);
  const auto it = fits.find(a.dtype);
  if (it == fits.end() && !datasheet_rates_) return {fallback_.attention(s), 0.0, Watts{0.0}};
  const FlopRate peak = p_.gpu.peak_for(DType::bf16);
  // Without a fit, a datasheet profile's published rates, taken as the highest clock's.
  // fp8 attention: the fit's 16-bit time over the profile's measured speed-up (the fallback applies it itself).
  double speedup = s.fp8 && it != fits.end() ? p_.attention_fp8.at(s.dtype, s.head_dim) : 1.0;
  // cuDNN's kernel without fits of its own: the flash fit over the profile's measured cuDNN speed-up.
  if (s.kernel == FusedAttention::cudnn && it != fits.end() &&
      (s.backward ? p_.fits.cudnn_attention_bwd : p_.fits.cudnn_attention_fwd).empty()) {
    speedup *= p_.attention_cudnn.at(s.backward, s.head_dim);
  }
  const Time t = it == fits.end() ? fallback_.attention(s) : Time::from_seconds(it->second.time(a, peak).seconds() / speedup);
  const auto& pc = p_.fits.power_cap;
  if (!pc || t <= Time::zero() || !pc->tensor_power.count(DType::bf16)) return {t, 0.0, Watts{0.0}};
  return {t, pc->clock_bound,
          pc->active_power + pc->tensor_power.at(DType::bf16) * (a.flops().value() / t.seconds() / peak.value())};
}

KernelLoad FittedCostModel::memory_load(Bytes bytes) const {
  const Time t = memory_bound(bytes);
  const auto& pc = p_.fits.power_cap;
  if (!pc || t <= Time::zero()) return {t, 0.0, Watts{0.0}};
  return {t, 0.0, pc->memory_power * (bytes / t / p_.gpu.memory_bandwidth)};
}

double FittedCostModel::sustained_clock(std::span<const KernelLoad> loads) const {
  const auto& pc = p_.fits.power_cap;
  if (!pc) return 1.0;
  return cap_ ? pc->sustained_clock(loads, *cap_) : pc->sustained_clock(loads);
}

Time FittedCostModel::alone(const KernelLoad& load) const {
  const auto& pc = p_.fits.power_cap;
  if (!pc) return load.at_max_clock;
  // On a GPU kept busy (a training step, a benchmark loop): its own clock or the busy GPU's, the lower.
  const double own = sustained_clock(std::span<const KernelLoad>(&load, 1));
  return load.at(std::min(own, pc->busy_clock(cap_.value_or(pc->power_limit))));
}

Time FittedCostModel::gemm(const GemmShape& s) const { return alone(gemm_load(s)); }

Time FittedCostModel::attention(const AttentionShape& s) const { return alone(attention_load(s)); }

Time FittedCostModel::memory_bound(Bytes bytes) const {
  if (!p_.fits.memory) return fallback_.memory_bound(bytes);
  return p_.fits.memory->time(bytes);
}

}  // namespace cs
