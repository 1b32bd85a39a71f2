// How one GPU of a replica spends its memory, and the paged KV cache that leaves (vLLM's accounting):
//   kv_cache = memory x memory_utilization - weights - activation reserve      (or engine.kv_cache_memory)
//   blocks   = floor(kv_cache / (block_size x KV bytes per token on the GPU))
// Every GPU of a replica holds the same share of each token's keys and values (its heads, its stage's layers),
// so the replica has `blocks` blocks whichever GPU is asked.
#pragma once

#include <cstdint>
#include <string>

#include "sim/core/units.hpp"
#include "sim/serving/serving_config.hpp"
#include "sim/serving/sharded_model.hpp"

namespace cs {

struct ReplicaMemory {
  Bytes gpu;           ///< the GPU's memory
  Bytes usable;        ///< gpu x memory_utilization
  Bytes weights;       ///< per GPU, fullest stage
  Bytes activations;   ///< reserved per GPU for one iteration's activations and workspace
  Bytes kv_cache;      ///< per GPU
  Bytes kv_per_token;  ///< per GPU
  std::int64_t blocks = 0;      ///< KV-cache blocks of the replica
  std::int64_t block_size = 0;  ///< tokens per block
  [[nodiscard]] std::int64_t token_capacity() const noexcept { return blocks * block_size; }
};

/// The activations of the largest iteration the engine runs, per GPU: `tokens` tokens (max_batched_tokens, or
/// the token budget) through one layer's widest point - hidden state and residual (2h), the QKV output, the
/// FFN's gate/up output and its activation (3 x FFN width; an MoE layer's routed copies of the tokens through
/// their experts) - in 16-bit, plus max_seqs rows of logits in 16-bit and fp32 (6 B each over the vocabulary).
[[nodiscard]] Bytes activation_reserve(const ShardedModel& shard, const EngineConfig& engine);

/// Plans the memory of one GPU of `gpu_memory`. Throws InputError at `serving.deployment` when the weights and
/// the reserve do not fit, or the cache holds not one block, saying so with the numbers.
[[nodiscard]] ReplicaMemory plan_replica_memory(const ShardedModel& shard, const EngineConfig& engine,
                                                Bytes gpu_memory);

}  // namespace cs
