#include "sim/serving/sharded_model.hpp"

#include <algorithm>
#include <cmath>

namespace cs {

ShardedModel::ShardedModel(const ModelSpec& m, const Deployment& d)
    : model(m), tp(d.tp), pp(d.pp), ep(d.ep), weights(d.weights), kv(d.kv_cache) {
  heads = std::max<std::int64_t>(1, m.heads / tp);
  kv_heads = m.is_mla() ? heads : std::max<std::int64_t>(1, m.kv_heads / tp);
  const double h = static_cast<double>(m.hidden);
  const double projections = m.attention_params() - static_cast<double>(m.o_dim()) * h;
  qkv_width = static_cast<std::int64_t>(std::llround(projections / h)) / tp;
  o_width = m.o_dim() / tp;
  ffn_width = m.ffn_hidden / tp;
  expert_width = m.expert_ffn_hidden * ep / tp;
  shared_expert_width = m.expert_ffn_hidden * m.shared_experts / tp;
  local_experts = m.experts / ep;
  // MLA's 192-wide query/key and 128-wide value heads work like 160-wide ones (AttentionShape's FLOP-equivalent
  // width); otherwise the query/key width.
  attention_width = m.is_mla() ? (m.qk_head_dim() + m.v_head_dim()) / 2 : m.qk_head_dim();
  stage_layers = (m.layers + pp - 1) / pp;
}

Bytes ShardedModel::kv_bytes_per_token_layer() const noexcept {
  const double width = model.is_mla() ? static_cast<double>(model.kv_lora_rank + model.rope_head_dim)
                                      : static_cast<double>(kv_heads * (model.qk_head_dim() + model.v_head_dim()));
  return Bytes{width * bytes_per_element(kv)};
}

Bytes ShardedModel::kv_bytes_per_token() const noexcept { return kv_bytes_per_token_layer() * stage_layers; }

Bytes ShardedModel::weight_bytes() const noexcept {
  // The fullest stage: the first stage's layers (an MoE model's dense layers lead, so its later stages hold
  // more parameters: take the largest stage).
  double layers = 0;
  for (int s = 0; s < pp; ++s) {
    double stage = 0;
    for (int l = s * stage_layers; l < std::min(model.layers, (s + 1) * stage_layers); ++l) {
      stage += model.layer_params(model.layer_kind(l));
    }
    layers = std::max(layers, stage);
  }
  const double embedding = static_cast<double>(model.vocab) * static_cast<double>(model.hidden);
  const double edges = pp == 1 ? embedding * (model.tied_embeddings ? 1.0 : 2.0) : embedding;
  return Bytes{layers / tp * bytes_per_element(weights) + edges / tp * 2.0};
}

double ShardedModel::active_local_experts(std::int64_t tokens) const noexcept {
  if (model.experts <= 0 || tokens <= 0) return 0.0;
  const double idle = std::pow(1.0 - static_cast<double>(model.top_k) / model.experts, static_cast<double>(tokens));
  return local_experts * (1.0 - idle);
}

}  // namespace cs
