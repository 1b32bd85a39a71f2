#include "sim/hardware/compute_cost_model.hpp"

#include <algorithm>
#include <cmath>

namespace cs {

namespace {

/// Query-key pairs a causal band of width w covers over s positions (w keys per query once past the first w).
double band_pairs(double s, double w) noexcept { return w * (w + 1.0) / 2.0 + (s - w) * w; }

}  // namespace

Flops AttentionShape::flops() const noexcept {
  const double full = 4.0 * static_cast<double>(batch) * static_cast<double>(heads) * static_cast<double>(seq_q) *
                      static_cast<double>(seq_kv) * static_cast<double>(head_dim);
  const double kv = static_cast<double>(seq_kv);
  // The band's share of the full score matrix (for CP, each rank's queries take their share of it).
  const double share = windowed() ? band_pairs(kv, static_cast<double>(window)) / (kv * kv) : causal ? 0.5 : 1.0;
  const double fwd = full * share;
  return Flops{backward ? 2.5 * fwd : fwd};
}

AttentionShape AttentionShape::tile_equivalent(std::int64_t min_len) const noexcept {
  if (!windowed()) return *this;
  AttentionShape e = *this;
  const std::int64_t len = std::min(seq_kv, std::max(2 * window, min_len));
  const double sequences = static_cast<double>(batch) * static_cast<double>(seq_q) / static_cast<double>(len);
  e.batch = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(sequences)));
  e.seq_q = e.seq_kv = len;
  e.window = 0;
  return e;
}

}  // namespace cs

namespace cs {

std::string_view to_string(FusedAttention k) noexcept {
  return k == FusedAttention::cudnn ? "cudnn" : "flash";
}

bool parse_fused_attention(std::string_view s, FusedAttention& out) noexcept {
  for (const FusedAttention k : {FusedAttention::flash, FusedAttention::cudnn}) {
    if (s == to_string(k)) {
      out = k;
      return true;
    }
  }
  return false;
}

std::string_view to_string(GemmLayout l) noexcept {
  switch (l) {
    case GemmLayout::tn: return "tn";
    case GemmLayout::nn: return "nn";
    case GemmLayout::nt: return "nt";
  }
  return "tn";
}

bool parse_gemm_layout(std::string_view s, GemmLayout& out) noexcept {
  for (const GemmLayout l : {GemmLayout::tn, GemmLayout::nn, GemmLayout::nt}) {
    if (s == to_string(l)) {
      out = l;
      return true;
    }
  }
  return false;
}

}  // namespace cs
