// The time of one engine iteration on one replica: a batch of prompt chunks and decoding sequences run through
// every layer on the replica's tp x pp GPUs, priced kernel by kernel from the ComputeCostModel (GEMMs, attention,
// bandwidth-bound kernels) and the ReplicaComm (TP all-reduces, the logits' all-gather, stage-to-stage sends).
//
// Per layer, with T tokens in the iteration (prompt-chunk tokens plus one per decoding sequence):
//   norm (fused residual add)   memory  4 T h x 2 B
//   QKV projection              GEMM    m = T, n = qkv_width, k = h
//   RoPE                        memory  2 T (q + k widths) x 2 B
//   KV-cache write              memory  T x kv bytes per token per layer (+ the 16-bit keys and values read)
//   prompt attention            fused attention per chunk of q new tokens after c cached ones: causal q x q
//                               when c = 0, else the FLOP-equivalent q x (c + q/2) without a mask
//   decode attention            memory  the cache read: (sum of contexts) x kv bytes per token per layer
//   output projection           GEMM    m = T, n = h, k = o_width;  TP all-reduce of T h x 2 B
//   norm                        memory  4 T h x 2 B
//   FFN                         GEMMs   gate/up (m = T, n = 2 ffn_width or ffn_width, k = h), activation
//                                       memory 3 T ffn_width x 2 B, down (m = T, n = h, k = ffn_width);
//                                       MoE: router GEMM, top-k, a grouped GEMM over the active local experts
//                                       (m = T top_k / active experts), shared experts as a dense FFN, and
//                                       the permutation and combine; TP all-reduce of T h x 2 B
// Every GEMM costs at least the time to stream its operands (weights read once per iteration, which is what
// a decode's skinny GEMM is bound by): max(gemm, memory_bound(m k + m n + k n x weight bytes)).
// Then the final norm, the logits GEMM (m = sampled rows, n = vocab / tp), their all-gather, the fp32 cast and
// the sampling read (10 B per logit), and pp - 1 sends of T h x 2 B between stages.
//
// Host: an iteration starts after `iteration_overhead`; a decode-only iteration with CUDA graphs is one graph
// launch (host_launch_cost) and then runs back to back; otherwise every kernel is launched eagerly at
// host_launch_cost and the GPU waits wherever the host falls behind (HostIssue, sim/replay/host_issue.hpp).
//
// A fitted GEMM or attention price evaluates an efficiency surface (tens of microseconds), so the kernels that
// depend only on T are remembered per T, the output layer's per sampled rows and each prompt chunk's attention
// per shape: an iteration costs a few hash lookups and one bandwidth-bound price per decode-attention term.
// Not thread-safe: one per simulation.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/hardware/compute_cost_model.hpp"
#include "sim/serving/replica_comm.hpp"
#include "sim/serving/serving_config.hpp"
#include "sim/serving/sharded_model.hpp"
#include "sim/workload/model_spec.hpp"

namespace cs {

/// Part of one sequence's prompt computed in this iteration.
struct PrefillChunk {
  std::int64_t tokens = 0;  ///< new tokens computed
  std::int64_t cached = 0;  ///< tokens of the sequence already in the KV cache (earlier chunks, prefix hits)
  bool samples = true;      ///< the chunk ends the prompt, so the sequence's next token is sampled from it
};

/// What one engine iteration computes on a replica.
struct BatchShape {
  std::vector<PrefillChunk> prefills;
  std::int64_t decodes = 0;         ///< sequences generating one token each
  std::int64_t decode_context = 0;  ///< tokens those sequences hold in the KV cache, summed
  [[nodiscard]] std::int64_t tokens() const noexcept;   ///< prompt-chunk tokens plus decodes
  [[nodiscard]] std::int64_t sampled() const noexcept;  ///< decodes plus chunks that end their prompt
  [[nodiscard]] bool empty() const noexcept { return prefills.empty() && decodes == 0; }
};

/// The fused-attention kernel that `batch` equal prompt chunks of `tokens` new tokens after `cached` ones run as
/// on one GPU: causal tokens x tokens when nothing is cached, else the unmasked tokens x (cached + tokens / 2,
/// rounded up), which has the chunk's tokens x cached + tokens (tokens + 1) / 2 query-key pairs.
[[nodiscard]] AttentionShape chunk_attention(const ShardedModel& shard, std::int64_t tokens, std::int64_t cached,
                                             std::int64_t batch, bool windowed);

/// An iteration's time by part (GPU stream time per kind of kernel, and the host's share).
struct IterationBreakdown {
  Time gemm, attention, memory, communication;
  Time host_wait;       ///< GPU idle waiting for launches
  Time overhead;        ///< the scheduler's host time before the first launch
  int kernels = 0;      ///< kernels launched (all layers, all stages)
  bool graph = false;   ///< replayed as a CUDA graph
  [[nodiscard]] Time gpu() const noexcept { return gemm + attention + memory + communication; }
  [[nodiscard]] Time total() const noexcept { return gpu() + host_wait + overhead; }
};

class IterationCost {
 public:
  /// `cost` and `comm` must outlive this object. Throws InputError for a model the serving layer does not
  /// price (hybrid state-space models).
  IterationCost(const ModelSpec& model, const Deployment& deployment, const EngineConfig& engine,
                const ComputeCostModel& cost, const ReplicaComm& comm);

  /// The iteration's time (breakdown(b).total()); zero for an empty batch.
  [[nodiscard]] Time price(const BatchShape& b) const;
  [[nodiscard]] IterationBreakdown breakdown(const BatchShape& b) const;

  [[nodiscard]] const ShardedModel& sharded() const noexcept { return shard_; }
  /// Host-to-GPU (or back) copy time of `blocks` KV blocks of `block_tokens` tokens on each GPU.
  [[nodiscard]] Time swap_time(std::int64_t blocks) const;

 private:
  /// The kernels of one layer, in launch order.
  enum Slot { kNormIn, kQkv, kRope, kKvWrite, kPrefillAttention, kDecodeAttention, kOProj, kAttnReduce, kNormPost,
              kRouter, kTopk, kPermute, kGateUp, kAct, kDown, kSharedGateUp, kSharedAct, kSharedDown, kCombine,
              kMlpReduce, kSlots };
  using LayerTimes = std::array<Time, kSlots>;
  [[nodiscard]] static constexpr bool is_gemm(int slot) noexcept {
    return slot == kQkv || slot == kOProj || slot == kRouter || slot == kGateUp || slot == kDown ||
           slot == kSharedGateUp || slot == kSharedDown;
  }
  /// The kernels that depend on T alone, per layer kind (dense, MoE), and the edges (embedding, final norm).
  struct TokenKernels {
    LayerTimes dense{}, moe{};
    Time embedding, final_norm, stage_send;
  };
  /// The output layer's kernels for `rows` sampled rows: logits GEMM, their all-gather, the cast, sampling.
  struct HeadKernels {
    Time logits, gather, cast, sample;
  };
  [[nodiscard]] const TokenKernels& token_kernels(std::int64_t tokens) const;
  [[nodiscard]] const HeadKernels& head_kernels(std::int64_t rows) const;
  [[nodiscard]] LayerTimes layer_times(LayerKind kind, std::int64_t tokens) const;
  /// y = x W^T for `tokens` rows of x and `features` outputs (per product, `batch` products).
  [[nodiscard]] Time gemm(std::int64_t tokens, std::int64_t features, std::int64_t k, DType dtype,
                          std::int64_t batch = 1) const;
  [[nodiscard]] Time prefill_attention(const std::vector<PrefillChunk>& chunks, bool windowed) const;
  [[nodiscard]] Time decode_attention(const BatchShape& b, bool windowed) const;

  ShardedModel shard_;
  EngineConfig engine_;
  const ComputeCostModel& cost_;
  const ReplicaComm& comm_;
  int dense_layers_ = 0, moe_layers_ = 0, windowed_dense_ = 0, windowed_moe_ = 0;
  /// The layers in order as runs of one variant (MoE: 2, windowed: 1) and their lengths.
  std::vector<std::pair<int, int>> layer_runs_;
  mutable std::unordered_map<std::int64_t, TokenKernels> by_tokens_;
  mutable std::unordered_map<std::int64_t, HeadKernels> by_rows_;
  mutable std::unordered_map<std::uint64_t, Time> attention_;  ///< per prompt-chunk shape, packed
  mutable std::vector<std::pair<std::int64_t, std::int64_t>> chunk_shapes_;  ///< scratch: (tokens, cached)
};

}  // namespace cs
