#include "sim/serving/replica_memory.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"
#include "sim/core/human_units.hpp"

namespace cs {

Bytes activation_reserve(const ShardedModel& shard, const EngineConfig& engine) {
  const ModelSpec& m = shard.model;
  const double tokens = static_cast<double>(
      engine.batching == Batching::chunked_prefill ? engine.token_budget : engine.max_batched_tokens);
  const double ffn = std::max(static_cast<double>(shard.ffn_width),
                              m.is_moe() ? static_cast<double>(m.top_k * shard.expert_width + shard.shared_expert_width)
                                         : 0.0);
  const double per_token = 2.0 * static_cast<double>(m.hidden) + static_cast<double>(shard.qkv_width) + 3.0 * ffn;
  const double logits = static_cast<double>(engine.max_seqs) * static_cast<double>(m.vocab) * 6.0;
  return Bytes{tokens * per_token * 2.0 + logits};
}

ReplicaMemory plan_replica_memory(const ShardedModel& shard, const EngineConfig& engine, Bytes gpu_memory) {
  ReplicaMemory r;
  r.gpu = gpu_memory;
  r.usable = gpu_memory * engine.memory_utilization;
  r.weights = shard.weight_bytes();
  r.activations = engine.activation_reserve.value_or(activation_reserve(shard, engine));
  r.kv_per_token = shard.kv_bytes_per_token();
  r.block_size = engine.block_size;
  if (engine.kv_cache_memory) {
    r.kv_cache = *engine.kv_cache_memory;
  } else {
    r.kv_cache = r.usable - r.weights - r.activations;
    if (r.kv_cache.value() <= 0) {
      throw InputError({}, "serving.deployment",
                       "the weights do not fit: " + to_string(r.weights) + " of weights and " +
                           to_string(r.activations) + " of activations per GPU (tp " + std::to_string(shard.tp) +
                           ", pp " + std::to_string(shard.pp) + ") exceed the " + to_string(r.usable) +
                           " usable (" + format_si(100.0 * engine.memory_utilization, "%") + " of " +
                           to_string(r.gpu) + "); raise tp or pp, or use fp8 weights");
    }
  }
  const double block_bytes = static_cast<double>(engine.block_size) * r.kv_per_token.value();
  r.blocks = static_cast<std::int64_t>(std::floor(r.kv_cache.value() / block_bytes));
  if (r.blocks < 1) {
    throw InputError({}, "serving.engine",
                     "the KV cache holds not one block: " + to_string(r.kv_cache) + " per GPU against " +
                         to_string(Bytes{block_bytes}) + " per block of " + std::to_string(engine.block_size) +
                         " tokens");
  }
  return r;
}

}  // namespace cs
