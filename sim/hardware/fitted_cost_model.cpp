#include "sim/hardware/fitted_cost_model.hpp"

namespace cs {

Time FittedCostModel::gemm(const GemmShape& s) const {
  const auto it = p_.fits.gemm.find(s.dtype);
  if (it == p_.fits.gemm.end()) return fallback_.gemm(s);
  return it->second.time(s, p_.gpu.sm_count, p_.gpu.peak_for(s.dtype));
}

Time FittedCostModel::attention(const AttentionShape& s) const {
  // Flash attention runs in bf16/fp16 even in fp8 training recipes (as in RooflineCostModel).
  AttentionShape a = s;
  if (a.dtype == DType::fp8 || a.dtype == DType::fp32 || a.dtype == DType::tf32) a.dtype = DType::bf16;
  const auto& fits = a.backward ? p_.fits.attention_bwd : p_.fits.attention_fwd;
  const auto it = fits.find(a.dtype);
  if (it == fits.end()) return fallback_.attention(s);
  return it->second.time(a, p_.gpu.peak_for(DType::bf16));
}

Time FittedCostModel::memory_bound(Bytes bytes) const {
  if (!p_.fits.memory) return fallback_.memory_bound(bytes);
  return p_.fits.memory->time(bytes);
}

}  // namespace cs
