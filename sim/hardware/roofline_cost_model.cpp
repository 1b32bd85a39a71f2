#include "sim/hardware/roofline_cost_model.hpp"

#include <algorithm>
#include <cmath>

namespace cs {
namespace {
double ceil_div(std::int64_t a, std::int64_t b) { return static_cast<double>((a + b - 1) / b); }
}  // namespace

Time RooflineCostModel::gemm(const GemmShape& s) const {
  const GemmModelParams& g = p_.gemm;
  const double k = static_cast<double>(s.k);
  const double tiles = ceil_div(s.m, g.tile_m) * ceil_div(s.n, g.tile_n) * static_cast<double>(s.batch);
  const double sms = static_cast<double>(p_.gpu.sm_count);
  const double waves = std::ceil(tiles / sms);
  const double per_sm_rate = p_.gpu.peak_for(s.dtype).value() / sms * g.efficiency_for(s.dtype) * (k / (k + g.k_half));
  const double t_compute = waves * 2.0 * g.tile_m * g.tile_n * k / per_sm_rate;
  const double elems = static_cast<double>(s.m * s.k + s.k * s.n + s.m * s.n) * static_cast<double>(s.batch);
  const double t_memory =
      elems * bytes_per_element(s.dtype) / (p_.gpu.memory_bandwidth.value() * p_.memory_efficiency);
  return Time::ceil_seconds(std::max(t_compute, t_memory)) + g.launch;
}

Time RooflineCostModel::attention(const AttentionShape& s) const {
  // Flash attention runs in bf16/fp16 even in fp8 and fp4 training recipes.
  const DType math = is_quantized(s.dtype) ? DType::bf16 : s.dtype;
  double speedup = s.fp8 ? p_.attention_fp8.at(s.dtype, s.head_dim) : 1.0;
  if (s.kernel == FusedAttention::cudnn) speedup *= p_.attention_cudnn.at(s.backward, s.head_dim);
  const double t_compute = s.flops().value() / (p_.gpu.peak_for(math).value() * p_.attention_efficiency * speedup);
  const double tokens_q = static_cast<double>(s.batch * s.seq_q), tokens_kv = static_cast<double>(s.batch * s.seq_kv);
  const double d = static_cast<double>(s.head_dim);
  // Q and O per query head, K and V per kv head; backward also reads dO and writes dQ, dK, dV.
  double bytes = (2.0 * tokens_q * static_cast<double>(s.heads) + 2.0 * tokens_kv * static_cast<double>(s.kv_heads)) *
                 d * bytes_per_element(math);
  if (s.backward) bytes *= 2.0;
  const double t_memory = bytes / (p_.gpu.memory_bandwidth.value() * p_.memory_efficiency);
  return Time::ceil_seconds(std::max(t_compute, t_memory)) + p_.kernel_overhead;
}

Time RooflineCostModel::memory_bound(Bytes bytes) const {
  return Time::ceil_seconds(bytes.value() / (p_.gpu.memory_bandwidth.value() * p_.memory_efficiency)) +
         p_.kernel_overhead;
}

}  // namespace cs
