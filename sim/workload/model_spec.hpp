// A transformer language model described by its dimensions: dense GPT/Llama-style or mixture-of-experts.
#pragma once

#include <cstdint>
#include <string>

namespace cs {

class InputNode;

enum class NormKind { layernorm, rmsnorm };

/// What one layer of a model is. A transformer layer holds self-attention and an FFN, dense or routed. A hybrid
/// model (Megatron-Core's hybrid_layer_pattern: Nemotron-H, Nemotron 3) stacks single blocks instead, each with
/// its own pre-norm and residual: a Mamba-2 mixer ('M'), self-attention ('*'), a dense MLP ('-') or a routed
/// MoE MLP ('E').
enum class LayerKind { dense, moe, mamba, attention, mlp, moe_mlp };

struct ModelSpec {
  std::string name;
  int layers = 0;
  std::int64_t hidden = 0;
  int heads = 0;
  int kv_heads = 0;              ///< = heads for multi-head attention; fewer for GQA/MQA
  /// Width of one attention head when it is not hidden/heads (Qwen3: 128 with hidden 2048 and 32 heads, so the
  /// attention works in 4,096 dimensions); 0: hidden/heads.
  std::int64_t head_width = 0;
  // Multi-head latent attention (DeepSeek-V2/V3, Kimi K2; Megatron-Core MLATransformerConfig): keys and values
  // come up from a shared low-rank latent, each query/key head carries an extra rotary part, and the value
  // heads may be narrower than the query/key heads. kv_lora_rank > 0 turns it on; every head is then a full
  // key/value head (kv_heads = heads) and head_dim is the non-rotary query/key width.
  std::int64_t q_lora_rank = 0;   ///< low-rank query projection h -> q_lora_rank -> queries; 0: full rank
  std::int64_t kv_lora_rank = 0;  ///< width of the key/value latent (DeepSeek-V3: 512); 0: no MLA
  std::int64_t rope_head_dim = 0; ///< decoupled rotary width added to each query/key head (DeepSeek-V3: 64)
  std::int64_t v_head_width = 0;  ///< width of one value head when it differs from head_dim; 0: head_dim
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
  /// Group-limited routing (DeepSeek-V3 n_group / topk_group: 8 / 4): the experts form `router_groups` equal
  /// groups and each token's experts come from its `router_group_topk` best groups. 0: unlimited.
  int router_groups = 0;
  int router_group_topk = 0;
  /// Multi-token prediction modules (DeepSeek-V3: 1; Megatron-Core mtp_num_layers): each predicts one more
  /// token from the last layer's output and the next token's embedding, with one more transformer layer of the
  /// model's last kind, a 2h -> h projection and the shared output head and loss, on the last pipeline stage.
  int mtp_layers = 0;
  /// Sliding-window attention (GPT-OSS: 128 in every other layer; Mistral 7B: 4,096 in all; Gemma 3: 1,024 in
  /// five of six; Megatron-Core window_size / window_attn_skip_freq): each query attends to itself and the
  /// window - 1 tokens before it. 0: every layer attends to the whole causal prefix.
  std::int64_t sliding_window = 0;
  /// With a sliding window, every full_attention_every-th layer (the 2nd, 4th, ... for 2, counted from 1)
  /// attends to the whole prefix instead; 0: all layers are windowed.
  int full_attention_every = 0;
  /// YaRN's attention concentration factor multiplied into the rotary embedding (GPT-OSS: 0.1 ln 32 + 1 = 1.347;
  /// Megatron-Core _yarn_get_concentration_factor). Transformer Engine's fused RoPE takes no such factor, so where
  /// it is not 1 Megatron-Core applies RoPE to Q and K with separate PyTorch operators (rope_utils, "mscale is not
  /// supported by TE's fused RoPE"), which the simulator prices; 1: the fused kernel, too small to price.
  double rope_mscale = 1.0;
  /// Each query and key head is normalised (RMSNorm over its head_dim) before RoPE (Qwen3; Megatron-Core
  /// qk_layernorm): one more bandwidth-bound pass over the queries and keys, forward and backward.
  bool qk_norm = false;
  /// The experts' linear layers have biases (GPT-OSS; Megatron-Core add_bias_linear). The down projection's bias is
  /// scaled by each token's routing probability, which Megatron-Core does after the grouped GEMM in an eager loop
  /// over the local experts in fp32 (TEGroupedMLP._apply_bias), priced as such.
  bool expert_bias = false;

  // Hybrid state-space models (empty pattern: every layer a transformer layer).
  /// One character per layer, Megatron-Core's hybrid_layer_pattern: M a Mamba-2 mixer, * self-attention, - a
  /// dense MLP, E a routed MoE MLP (Nemotron-H 56B: 118 layers, 54 M, 54 -, 10 *). `layers` is its length.
  std::string hybrid_pattern;
  int mamba_heads = 0;               ///< SSM heads of a Mamba-2 mixer (d_inner = heads x head_dim)
  std::int64_t mamba_head_dim = 64;  ///< channels per SSM head (P)
  std::int64_t mamba_state = 128;    ///< state size per head (N, d_state)
  int mamba_groups = 8;              ///< groups sharing one B and C projection (G, like GQA's key/value groups)
  int mamba_conv = 4;                ///< width of the causal depthwise convolution
  int mamba_chunk = 128;             ///< tokens per chunk of the chunked scan (SSD; Megatron-Core's default)

  [[nodiscard]] bool is_moe() const noexcept { return experts > 0; }
  [[nodiscard]] bool is_hybrid() const noexcept { return !hybrid_pattern.empty(); }
  /// What layer `l` (0-based) is: its pattern character in a hybrid model, else dense or MoE (an MoE model's
  /// first dense_layers are dense).
  [[nodiscard]] LayerKind layer_kind(int l) const noexcept;
  /// Layers of kind `k` in the whole model.
  [[nodiscard]] int count(LayerKind k) const noexcept;
  /// Inner width of a Mamba-2 mixer (heads x head_dim).
  [[nodiscard]] std::int64_t mamba_inner() const noexcept { return static_cast<std::int64_t>(mamba_heads) * mamba_head_dim; }
  /// Width of a Mamba-2 mixer's input projection: z and x (d_inner each), B and C (groups x state each), dt
  /// (one per head).
  [[nodiscard]] std::int64_t mamba_in_proj() const noexcept {
    return 2 * mamba_inner() + 2 * mamba_groups * mamba_state + mamba_heads;
  }
  /// Whether a layout splits the Mamba-2 mixers' heads and B/C groups evenly over `tp` and then `cp` ranks (as
  /// Megatron-Core's MambaMixer and MambaContextParallel need); true for a model without Mamba layers.
  [[nodiscard]] bool splits_mamba_over(int tp, int cp = 1) const noexcept;
  /// Parameters of one Mamba-2 mixer: in_proj, the depthwise convolution over x, B and C (with bias), A, D and
  /// dt's bias per head, the gated norm's weight and out_proj.
  [[nodiscard]] double mamba_params() const noexcept;
  /// Parameters of one routed MoE MLP: every expert, the shared experts and the router.
  [[nodiscard]] double moe_mlp_params() const noexcept;
  /// Parameters of one layer of kind `k` (norms excluded).
  [[nodiscard]] double layer_params(LayerKind k) const noexcept;
  [[nodiscard]] bool is_mla() const noexcept { return kv_lora_rank > 0; }
  /// Whether layer `l` (0-based) attends within the sliding window.
  [[nodiscard]] bool windowed_layer(int l) const noexcept {
    return sliding_window > 0 && (full_attention_every <= 0 || (l + 1) % full_attention_every != 0);
  }
  [[nodiscard]] std::int64_t head_dim() const noexcept { return head_width > 0 ? head_width : hidden / heads; }
  /// Width of one query/key head (head_dim, plus the rotary part under MLA) and of one value head.
  [[nodiscard]] std::int64_t qk_head_dim() const noexcept { return head_dim() + rope_head_dim; }
  [[nodiscard]] std::int64_t v_head_dim() const noexcept { return v_head_width > 0 ? v_head_width : head_dim(); }
  /// Widths of the queries, keys, values and attention output (all = hidden for a plain GPT layer; Qwen3's
  /// 128-wide heads make q and o twice the hidden size; MLA's heads are 192 wide for q and k, 128 for v).
  [[nodiscard]] std::int64_t q_dim() const noexcept { return qk_head_dim() * heads; }
  [[nodiscard]] std::int64_t k_dim() const noexcept { return qk_head_dim() * kv_heads; }
  [[nodiscard]] std::int64_t v_dim() const noexcept { return v_head_dim() * kv_heads; }
  [[nodiscard]] std::int64_t o_dim() const noexcept { return v_head_dim() * heads; }
  /// Attention-core FLOPs per query and key position pair, summed over heads, forward (Q K^T then P V):
  /// 2 x heads x (qk_head_dim + v_head_dim); = 4 x q_dim for equal widths.
  [[nodiscard]] double attention_pair_flops() const noexcept {
    return 2.0 * static_cast<double>(heads) * static_cast<double>(qk_head_dim() + v_head_dim());
  }

  /// Parameters of one attention block (projections; norms are negligible and excluded):
  /// h x (q + k + v) + o x h, or under MLA the low-rank query path, the latent down projection
  /// h x (kv_lora_rank + rope_head_dim), its up projection kv_lora_rank x heads x (head_dim + v_head_dim), and o x h.
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
