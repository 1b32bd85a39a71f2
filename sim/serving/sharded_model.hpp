// A model's dimensions as one GPU of a serving replica sees them: tensor parallelism splits the heads and the
// FFN (Megatron-style column- then row-parallel GEMMs), key/value heads are replicated where there are fewer
// than tp of them, and an MoE layer's experts are spread over ep groups of tp / ep GPUs each. Pipeline stages
// hold consecutive layers, ceil(layers / pp) on the fullest one.
#pragma once

#include <cstdint>

#include "sim/core/units.hpp"
#include "sim/hardware/dtype.hpp"
#include "sim/serving/serving_config.hpp"
#include "sim/workload/model_spec.hpp"

namespace cs {

struct ShardedModel {
  ShardedModel(const ModelSpec& model, const Deployment& deployment);

  ModelSpec model;
  int tp = 1, pp = 1, ep = 1;
  DType weights = DType::bf16;
  DType kv = DType::bf16;
  std::int64_t heads = 0;       ///< query heads per GPU
  std::int64_t kv_heads = 0;    ///< key/value heads per GPU (at least one)
  std::int64_t qkv_width = 0;   ///< output width of the fused QKV projection per GPU (MLA: parameter-equivalent)
  std::int64_t o_width = 0;     ///< input width of the output projection per GPU
  std::int64_t ffn_width = 0;   ///< a dense FFN's inner width per GPU
  std::int64_t expert_width = 0;         ///< one routed expert's inner width on the GPUs that hold it
  std::int64_t shared_expert_width = 0;  ///< the shared experts' inner width per GPU (all of them together)
  int local_experts = 0;                 ///< routed experts each GPU holds
  std::int64_t attention_width = 0;      ///< head width the attention kernels are priced at
  int stage_layers = 0;                  ///< layers on the fullest pipeline stage

  /// KV-cache bytes one token adds to one layer on one GPU: kv_heads x (qk + v head widths) x dtype, or under
  /// MLA the latent and rotary key, kv_lora_rank + rope_head_dim, held whole by every GPU.
  [[nodiscard]] Bytes kv_bytes_per_token_layer() const noexcept;
  /// The same over the fullest stage's layers.
  [[nodiscard]] Bytes kv_bytes_per_token() const noexcept;
  /// Weights one GPU of the fullest stage holds: its layers' parameters / tp in the weight format (an MoE
  /// layer's experts too: each GPU holds experts / ep of them at ep / tp of their width), plus the embedding
  /// (first stage) and the output layer (last stage), which stay 16-bit.
  [[nodiscard]] Bytes weight_bytes() const noexcept;
  /// Expected routed experts that `tokens` tokens activate in one MoE layer on one GPU, routing uniformly at
  /// random: local_experts x (1 - (1 - top_k / experts)^tokens).
  [[nodiscard]] double active_local_experts(std::int64_t tokens) const noexcept;
};

}  // namespace cs
