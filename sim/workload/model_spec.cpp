#include "sim/workload/model_spec.hpp"

#include "sim/input/input_node.hpp"

namespace cs {

double ModelSpec::attention_params() const noexcept {
  const double h = static_cast<double>(hidden), q = static_cast<double>(q_dim()), o = static_cast<double>(o_dim());
  if (!is_mla()) return h * (q + static_cast<double>(k_dim() + v_dim())) + o * h;
  const double ql = static_cast<double>(q_lora_rank), kvl = static_cast<double>(kv_lora_rank);
  const double query = q_lora_rank > 0 ? h * ql + ql * q : h * q;
  const double latent = h * (kvl + static_cast<double>(rope_head_dim)) +
                        kvl * static_cast<double>(heads) * static_cast<double>(head_dim() + v_head_dim());
  return query + latent + o * h;
}

double ModelSpec::ffn_params(bool expert) const noexcept {
  const double f = static_cast<double>(expert ? expert_ffn_hidden : ffn_hidden);
  return static_cast<double>(hidden) * f * (gated_ffn ? 3.0 : 2.0);
}

LayerKind ModelSpec::layer_kind(int l) const noexcept {
  if (is_hybrid()) {
    switch (l >= 0 && l < static_cast<int>(hybrid_pattern.size()) ? hybrid_pattern[static_cast<std::size_t>(l)] : '-') {
      case 'M': return LayerKind::mamba;
      case '*': return LayerKind::attention;
      case 'E': return LayerKind::moe_mlp;
      default: return LayerKind::mlp;
    }
  }
  return is_moe() && l >= dense_layers ? LayerKind::moe : LayerKind::dense;
}

int ModelSpec::count(LayerKind k) const noexcept {
  int n = 0;
  for (int l = 0; l < layers; ++l) n += layer_kind(l) == k ? 1 : 0;
  return n;
}

bool ModelSpec::splits_mamba_over(int tp, int cp) const noexcept {
  if (hybrid_pattern.find('M') == std::string::npos) return true;
  if (tp <= 0 || cp <= 0 || mamba_heads % tp != 0 || mamba_groups % tp != 0) return false;
  return (mamba_heads / tp) % cp == 0 && (mamba_groups / tp) % cp == 0;
}

double ModelSpec::mamba_params() const noexcept {
  const double h = static_cast<double>(hidden), d = static_cast<double>(mamba_inner());
  const double conv_channels = d + 2.0 * static_cast<double>(mamba_groups * mamba_state);
  return h * static_cast<double>(mamba_in_proj()) + conv_channels * (mamba_conv + 1.0) + 3.0 * mamba_heads + d + d * h;
}

double ModelSpec::moe_mlp_params() const noexcept {
  return (experts + shared_experts) * ffn_params(true) + static_cast<double>(hidden) * experts;
}

double ModelSpec::layer_params(LayerKind k) const noexcept {
  switch (k) {
    case LayerKind::dense: return attention_params() + ffn_params();
    case LayerKind::moe: return attention_params() + moe_mlp_params();
    case LayerKind::mamba: return mamba_params();
    case LayerKind::attention: return attention_params();
    case LayerKind::mlp: return ffn_params();
    case LayerKind::moe_mlp: return moe_mlp_params();
  }
  return 0.0;
}

double ModelSpec::total_params() const noexcept {
  double p = static_cast<double>(vocab) * static_cast<double>(hidden) * (tied_embeddings ? 1.0 : 2.0);
  for (int l = 0; l < layers; ++l) p += layer_params(layer_kind(l));
  return p;
}

double ModelSpec::active_params() const noexcept {
  // A routed MLP activates top_k of its experts (and the shared ones), not all of them.
  const double inactive = is_moe() ? (experts - top_k) * ffn_params(true) : 0.0;
  return total_params() - (count(LayerKind::moe) + count(LayerKind::moe_mlp)) * inactive;
}

void check_model_spec(const InputNode& n, ModelSpec& m) {
  auto positive = [&](bool ok, const char* key) {
    if (!ok) (n.has(key) ? n.at(key) : n).fail(std::string(key) + " must be given and positive");
  };
  if (m.is_hybrid()) {
    // Megatron-Core's hybrid_layer_pattern: one character per layer.
    const InputNode& at = n.has("hybrid_pattern") ? n.at("hybrid_pattern") : n;
    for (const char c : m.hybrid_pattern) {
      if (c != 'M' && c != '*' && c != '-' && c != 'E') {
        at.fail(std::string("hybrid_pattern holds '") + c + "': each layer is M (Mamba-2 mixer), * (attention), - (dense MLP) or E (MoE MLP)");
      }
    }
    const int length = static_cast<int>(m.hybrid_pattern.size());
    if (m.layers == 0) m.layers = length;
    if (m.layers != length) {
      (n.has("layers") ? n.at("layers") : at).fail("layers (" + std::to_string(m.layers) + ") must equal the length of hybrid_pattern (" + std::to_string(length) + ")");
    }
    const bool has_e = m.hybrid_pattern.find('E') != std::string::npos;
    if (has_e != m.is_moe()) at.fail(has_e ? "hybrid_pattern has MoE layers (E): experts must be given" : "an MoE hybrid model (experts > 0) marks its MoE layers E in hybrid_pattern");
    if (m.hybrid_pattern.find('M') != std::string::npos) {
      auto mamba = [&](bool ok, const char* key, const std::string& why) {
        if (!ok) (n.has(key) ? n.at(key) : at).fail(std::string(key) + " " + why);
      };
      mamba(m.mamba_heads > 0, "mamba_heads", "must be given and positive for a model with Mamba layers (M)");
      mamba(m.mamba_head_dim > 0, "mamba_head_dim", "must be positive");
      mamba(m.mamba_state > 0, "mamba_state", "must be positive");
      mamba(m.mamba_groups > 0 && m.mamba_heads % m.mamba_groups == 0, "mamba_groups", "must be positive and divide mamba_heads");
      mamba(m.mamba_conv > 0, "mamba_conv", "must be positive");
      mamba(m.mamba_chunk > 0, "mamba_chunk", "must be positive");
    }
  }
  positive(m.layers > 0, "layers");
  positive(m.hidden > 0, "hidden");
  positive(m.heads > 0, "heads");
  positive(m.vocab > 0, "vocab");
  positive(m.seq_len > 0, "seq_len");
  if (m.kv_heads == 0) m.kv_heads = m.heads;
  if (m.ffn_hidden == 0) m.ffn_hidden = 4 * m.hidden;
  if (m.head_width < 0) n.at("head_dim").fail("head_dim must be positive (or 0: hidden/heads)");
  if (m.head_width == 0 && m.hidden % m.heads != 0) n.fail("hidden (" + std::to_string(m.hidden) + ") must be a multiple of heads (" + std::to_string(m.heads) + ") unless head_dim is given");
  if (m.kv_heads <= 0 || m.heads % m.kv_heads != 0) n.fail("heads must be a multiple of kv_heads");
  if (m.is_mla()) {
    // MLA expands the latent into a full key and value head per query head (Megatron-Core, DeepSeek-V3).
    if (m.kv_heads != m.heads) (n.has("kv_heads") ? n.at("kv_heads") : n).fail("multi-head latent attention (kv_lora_rank > 0) has one key/value head per query head: kv_heads must equal heads or be left out");
  } else {
    auto mla_only = [&](std::int64_t v, const char* key) {
      if (v > 0) (n.has(key) ? n.at(key) : n).fail(std::string(key) + " is a multi-head latent attention dimension: it needs kv_lora_rank > 0");
    };
    mla_only(m.q_lora_rank, "q_lora_rank");
    mla_only(m.rope_head_dim, "rope_head_dim");
  }
  if (m.mtp_layers < 0 || m.mtp_layers >= m.layers) {
    (n.has("mtp_layers") ? n.at("mtp_layers") : n).fail("mtp_layers must lie in 0..layers-1");
  }
  if (m.is_moe()) {
    if (m.top_k <= 0 || m.top_k > m.experts) n.fail("top_k must lie in 1..experts for an MoE model");
    if (m.expert_ffn_hidden == 0) m.expert_ffn_hidden = m.ffn_hidden;
    if (m.dense_layers < 0 || m.dense_layers >= m.layers) n.fail("dense_layers must lie in 0..layers-1");
    if (m.is_hybrid() && m.dense_layers != 0) (n.has("dense_layers") ? n.at("dense_layers") : n).fail("a hybrid model marks its dense MLP layers - in hybrid_pattern: dense_layers does not apply");
    if (m.router_groups > 0) {
      const InputNode& at = n.has("router_groups") ? n.at("router_groups") : n;
      if (m.experts % m.router_groups != 0) at.fail("router_groups must divide experts");
      if (m.router_group_topk < 1 || m.router_group_topk > m.router_groups) {
        (n.has("router_group_topk") ? n.at("router_group_topk") : at).fail("router_group_topk must lie in 1..router_groups");
      }
      if (m.top_k > m.router_group_topk * (m.experts / m.router_groups)) {
        at.fail("top_k experts do not fit in router_group_topk groups");
      }
    } else if (m.router_group_topk > 0) {
      (n.has("router_group_topk") ? n.at("router_group_topk") : n).fail("router_group_topk needs router_groups > 0");
    }
  }
}

}  // namespace cs
