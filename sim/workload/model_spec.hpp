// A transformer language model described by its dimensions: dense GPT/Llama-style or mixture-of-experts.
#pragma once

#include <cstdint>
#include <string>

namespace cs {

class InputNode;

enum class NormKind { layernorm, rmsnorm };

struct ModelSpec {
  std::string name;
  int layers = 0;
  std::int64_t hidden = 0;
  int heads = 0;
  int kv_heads = 0;              ///< = heads for multi-head attention; fewer for GQA/MQA
  /// Width of one attention head when it is not hidden/heads (Qwen3: 128 with hidden 2048 and 32 heads, so the
  /// attention works in 4,096 dimensions); 0: hidden/heads.
  std::int64_t head_width = 0;
  std::int64_t ffn_hidden = 0;   ///< FFN inner size of a dense layer (4h for GPT-3)
  bool gated_ffn = false;        ///< SwiGLU: up and gate projections, then down
  std::int64_t vocab = 0;
  int seq_len = 0;               ///< default training sequence length
  NormKind norm = NormKind::layernorm;
  bool tied_embeddings = false;
  // Mixture of experts (experts == 0: dense).
  int experts = 0;
  int top_k = 0;
  int shared_experts = 0;
  std::int64_t expert_ffn_hidden = 0;
  int dense_layers = 0;          ///< leading layers that stay dense in an MoE model (DeepSeek-V3: 3)

  [[nodiscard]] bool is_moe() const noexcept { return experts > 0; }
  [[nodiscard]] std::int64_t head_dim() const noexcept { return head_width > 0 ? head_width : hidden / heads; }
  /// Width of the queries and of the attention output: heads x head_dim (= hidden unless head_width says otherwise).
  [[nodiscard]] std::int64_t q_dim() const noexcept { return head_dim() * heads; }
  [[nodiscard]] std::int64_t kv_dim() const noexcept { return head_dim() * kv_heads; }

  /// Parameters of one attention block (QKV and output projections; norms are negligible and excluded):
  /// h x (q + 2 kv) + q x h.
  [[nodiscard]] double attention_params() const noexcept;
  /// Parameters of one dense FFN, or of one expert (with `expert`).
  [[nodiscard]] double ffn_params(bool expert = false) const noexcept;
  /// All parameters, embeddings included (the output layer counted once when tied).
  [[nodiscard]] double total_params() const noexcept;
  /// Parameters one token activates (for MoE: top_k routed plus shared experts).
  [[nodiscard]] double active_params() const noexcept;
};

/// Reads a `model:` section: either `preset: NAME` (models/NAME.yaml in the data directory, any of whose
/// keys may be overridden alongside) or the dimensions themselves. Throws InputError on any problem.
[[nodiscard]] ModelSpec parse_model_spec(const InputNode& section);
/// Checks the dimensions read into `m` fit together and fills the derived defaults (kv_heads = heads,
/// ffn_hidden = 4h, expert_ffn_hidden = ffn_hidden); throws InputError at `n`.
void check_model_spec(const InputNode& n, ModelSpec& m);

}  // namespace cs
