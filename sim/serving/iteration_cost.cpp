#include "sim/serving/iteration_cost.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "sim/core/error.hpp"
#include "sim/replay/host_issue.hpp"

namespace cs {

std::int64_t BatchShape::tokens() const noexcept {
  std::int64_t t = decodes;
  for (const auto& c : prefills) t += c.tokens;
  return t;
}

std::int64_t BatchShape::sampled() const noexcept {
  std::int64_t r = decodes;
  for (const auto& c : prefills) r += c.samples ? 1 : 0;
  return r;
}

namespace {

constexpr double k16 = 2.0;  // bytes of a 16-bit activation

double d(std::int64_t v) { return static_cast<double>(v); }

}  // namespace

AttentionShape chunk_attention(const ShardedModel& shard, std::int64_t tokens, std::int64_t cached,
                               std::int64_t batch, bool windowed) {
  AttentionShape a;
  a.batch = batch;
  a.heads = shard.heads;
  a.kv_heads = shard.kv_heads;
  a.head_dim = shard.attention_width;
  a.seq_q = tokens;
  a.causal = cached == 0;
  a.seq_kv = cached == 0 ? tokens : cached + (tokens + 1) / 2;
  a.window = windowed ? shard.model.sliding_window : 0;
  return a;
}

IterationCost::IterationCost(const ModelSpec& model, const Deployment& deployment, const EngineConfig& engine,
                             const ComputeCostModel& cost, const ReplicaComm& comm)
    : shard_(model, deployment), engine_(engine), cost_(cost), comm_(comm) {
  if (model.is_hybrid()) {
    throw InputError({}, "model", "hybrid state-space models (" + model.name + ") are not served yet");
  }
  for (int l = 0; l < model.layers; ++l) {
    const bool moe = model.layer_kind(l) == LayerKind::moe;
    (moe ? moe_layers_ : dense_layers_) += 1;
    if (model.windowed_layer(l)) (moe ? windowed_moe_ : windowed_dense_) += 1;
    const int variant = (moe ? 2 : 0) + (model.windowed_layer(l) ? 1 : 0);
    if (layer_runs_.empty() || layer_runs_.back().first != variant) layer_runs_.emplace_back(variant, 0);
    ++layer_runs_.back().second;
  }
}

Time IterationCost::gemm(std::int64_t tokens, std::int64_t features, std::int64_t k, DType dtype,
                         std::int64_t batch) const {
  if (tokens <= 0 || features <= 0 || k <= 0 || batch <= 0) return Time::zero();
  // y = x W^T as PyTorch calls cuBLAS: column-major m = output features, n = tokens (the leading dimensions are
  // k, k and the features, so any token count is aligned; a TN shape is symmetric in m and n otherwise).
  const GemmShape s{features, tokens, k, dtype, batch, GemmLayout::tn};
  // Operands read once and the 16-bit result written once: a skinny GEMM is bound by reading its weights.
  const double in = bytes_per_element(dtype);
  const Bytes moved{d(batch) * (in * (d(tokens) * d(k) + d(k) * d(features)) + k16 * d(tokens) * d(features))};
  return std::max(cost_.gemm(s), cost_.memory_bound(moved));
}

IterationCost::LayerTimes IterationCost::layer_times(LayerKind kind, std::int64_t tokens) const {
  const ModelSpec& m = shard_.model;
  const double T = d(tokens), h = d(m.hidden);
  const DType w = shard_.weights;
  LayerTimes t{};
  t[kNormIn] = cost_.memory_bound(Bytes{4.0 * T * h * k16});
  t[kQkv] = gemm(tokens, shard_.qkv_width, m.hidden, w);
  t[kRope] = cost_.memory_bound(Bytes{2.0 * T * d((shard_.heads + shard_.kv_heads) * m.qk_head_dim()) * k16});
  const double kv_in = m.is_mla() ? d(m.kv_lora_rank + m.rope_head_dim)
                                  : d(shard_.kv_heads * (m.qk_head_dim() + m.v_head_dim()));
  t[kKvWrite] = cost_.memory_bound(Bytes{T * (kv_in * k16 + shard_.kv_bytes_per_token_layer().value())});
  t[kOProj] = gemm(tokens, m.hidden, shard_.o_width, w);
  t[kAttnReduce] = comm_.all_reduce(Bytes{T * h * k16});
  t[kNormPost] = cost_.memory_bound(Bytes{4.0 * T * h * k16});
  const double gate = m.gated_ffn ? 2.0 : 1.0;
  const double act = m.gated_ffn ? 3.0 : 2.0;  // SwiGLU reads gate and up, writes one; GELU reads and writes
  if (kind == LayerKind::moe) {
    t[kRouter] = gemm(tokens, m.experts, m.hidden, DType::bf16);
    t[kTopk] = cost_.memory_bound(Bytes{2.0 * T * d(m.experts) * 4.0});
    const double routed = T * d(m.top_k) / shard_.ep;  // token copies this GPU's experts receive
    t[kPermute] = cost_.memory_bound(Bytes{2.0 * routed * h * k16});
    const double active = shard_.active_local_experts(tokens);
    if (active > 0) {
      const auto experts = std::max<std::int64_t>(1, std::llround(active));
      const auto rows = static_cast<std::int64_t>(std::ceil(routed / d(experts)));
      t[kGateUp] = gemm(rows, static_cast<std::int64_t>(gate) * shard_.expert_width, m.hidden, w, experts);
      t[kAct] = cost_.memory_bound(Bytes{d(experts) * d(rows) * d(shard_.expert_width) * act * k16});
      t[kDown] = gemm(rows, m.hidden, shard_.expert_width, w, experts);
    }
    if (shard_.shared_expert_width > 0) {
      t[kSharedGateUp] = gemm(tokens, static_cast<std::int64_t>(gate) * shard_.shared_expert_width, m.hidden, w);
      t[kSharedAct] = cost_.memory_bound(Bytes{T * d(shard_.shared_expert_width) * act * k16});
      t[kSharedDown] = gemm(tokens, m.hidden, shard_.shared_expert_width, w);
    }
    t[kCombine] = cost_.memory_bound(Bytes{(routed + 2.0 * T) * h * k16});
  } else {
    t[kGateUp] = gemm(tokens, static_cast<std::int64_t>(gate) * shard_.ffn_width, m.hidden, w);
    t[kAct] = cost_.memory_bound(Bytes{T * d(shard_.ffn_width) * act * k16});
    t[kDown] = gemm(tokens, m.hidden, shard_.ffn_width, w);
  }
  t[kMlpReduce] = comm_.all_reduce(Bytes{T * h * k16});
  return t;
}

const IterationCost::TokenKernels& IterationCost::token_kernels(std::int64_t tokens) const {
  const auto it = by_tokens_.find(tokens);
  if (it != by_tokens_.end()) return it->second;
  TokenKernels k;
  const double T = d(tokens), h = d(shard_.model.hidden);
  if (dense_layers_ > 0) k.dense = layer_times(LayerKind::dense, tokens);
  if (moe_layers_ > 0) k.moe = layer_times(LayerKind::moe, tokens);
  k.embedding = cost_.memory_bound(Bytes{2.0 * T * h * k16});
  k.final_norm = cost_.memory_bound(Bytes{4.0 * T * h * k16});
  k.stage_send = shard_.pp > 1 ? comm_.send(Bytes{T * h * k16}) : Time::zero();
  return by_tokens_.emplace(tokens, k).first->second;
}

const IterationCost::HeadKernels& IterationCost::head_kernels(std::int64_t rows) const {
  const auto it = by_rows_.find(rows);
  if (it != by_rows_.end()) return it->second;
  const ModelSpec& m = shard_.model;
  HeadKernels k;
  if (rows > 0) {
    k.logits = gemm(rows, m.vocab / shard_.tp, m.hidden, DType::bf16);
    k.gather = comm_.all_gather(Bytes{d(rows) * d(m.vocab) * k16});
    k.cast = cost_.memory_bound(Bytes{d(rows) * d(m.vocab) * 6.0});  // bf16 read, fp32 written
    k.sample = cost_.memory_bound(Bytes{d(rows) * d(m.vocab) * 4.0});
  }
  return by_rows_.emplace(rows, k).first->second;
}

Time IterationCost::prefill_attention(const std::vector<PrefillChunk>& chunks, bool windowed) const {
  if (chunks.empty()) return Time::zero();
  // Chunks of one shape run as one batch (a static batch of equal prompts); each other shape is priced alone.
  std::vector<std::pair<std::int64_t, std::int64_t>>& shapes = chunk_shapes_;
  shapes.clear();
  for (const auto& c : chunks) shapes.emplace_back(c.tokens, c.cached);
  std::sort(shapes.begin(), shapes.end());
  Time total;
  for (std::size_t i = 0; i < shapes.size();) {
    std::size_t j = i;
    while (j < shapes.size() && shapes[j] == shapes[i]) ++j;
    const auto [q, cached] = shapes[i];
    const auto batch = static_cast<std::int64_t>(j - i);
    // Remembered by (q, cached, batch, window) packed in 64 bits where they fit (nearly always).
    const bool packs = q < (1 << 21) && cached < (1 << 24) && batch < (1 << 18);
    const std::uint64_t key = (static_cast<std::uint64_t>(q) << 43) | (static_cast<std::uint64_t>(cached) << 19) |
                              (static_cast<std::uint64_t>(batch) << 1) | (windowed ? 1u : 0u);
    if (const auto it = packs ? attention_.find(key) : attention_.end(); it != attention_.end()) {
      total += it->second;
    } else {
      const AttentionShape a = chunk_attention(shard_, q, cached, batch, windowed);
      const Time t = cost_.attention(a);
      if (packs) attention_.emplace(key, t);
      total += t;
    }
    i = j;
  }
  return total;
}

Time IterationCost::decode_attention(const BatchShape& b, bool windowed) const {
  if (b.decodes == 0) return Time::zero();
  const ModelSpec& m = shard_.model;
  const std::int64_t context =
      windowed ? std::min(b.decode_context, b.decodes * m.sliding_window) : b.decode_context;
  const double q_and_out = d(shard_.heads * (m.qk_head_dim() + m.v_head_dim())) * k16;
  return cost_.memory_bound(
      Bytes{d(context) * shard_.kv_bytes_per_token_layer().value() + d(b.decodes) * q_and_out});
}

Time IterationCost::swap_time(std::int64_t blocks) const {
  return Bytes{d(blocks) * d(engine_.block_size) * shard_.kv_bytes_per_token().value()} / engine_.swap_bandwidth;
}

IterationBreakdown IterationCost::breakdown(const BatchShape& b) const {
  IterationBreakdown r;
  if (b.empty()) return r;
  const std::int64_t tokens = b.tokens(), rows = b.sampled();
  const TokenKernels& tk = token_kernels(tokens);

  // The attention of full and windowed layers (the rest of a layer does not depend on its window).
  const Time prefill_full = prefill_attention(b.prefills, false);
  const Time decode_full = decode_attention(b, false);
  const bool any_window = windowed_dense_ + windowed_moe_ > 0;
  const Time prefill_window = any_window ? prefill_attention(b.prefills, true) : Time::zero();
  const Time decode_window = any_window ? decode_attention(b, true) : Time::zero();

  // The head: final norm over every token, logits of the sampled rows, gathered over TP, cast and sampled.
  const auto [logits, gather, cast, sample] = head_kernels(rows);
  const std::array<Time, 7> head{tk.embedding, tk.final_norm, logits, gather, cast, sample, tk.stage_send};

  const auto layer = [&](bool moe, bool windowed) {
    LayerTimes t = moe ? tk.moe : tk.dense;
    t[kPrefillAttention] = windowed ? prefill_window : prefill_full;
    t[kDecodeAttention] = windowed ? decode_window : decode_full;
    return t;
  };
  const auto add = [&r](const LayerTimes& t, int times) {
    for (int s = 0; s < kSlots; ++s) {
      if (t[static_cast<std::size_t>(s)] <= Time::zero()) continue;
      const Time v = t[static_cast<std::size_t>(s)] * times;
      if (is_gemm(s)) r.gemm += v;
      else if (s == kPrefillAttention || s == kDecodeAttention) r.attention += v;
      else if (s == kAttnReduce || s == kMlpReduce) r.communication += v;
      else r.memory += v;
      r.kernels += times;
    }
  };
  add(layer(false, false), dense_layers_ - windowed_dense_);
  add(layer(false, true), windowed_dense_);
  add(layer(true, false), moe_layers_ - windowed_moe_);
  add(layer(true, true), windowed_moe_);
  r.gemm += logits;
  r.communication += gather + tk.stage_send * (shard_.pp - 1);
  r.memory += tk.embedding + tk.final_norm + cast + sample;
  for (const Time t : head) r.kernels += t > Time::zero() ? 1 : 0;
  r.kernels += shard_.pp > 2 ? shard_.pp - 2 : 0;

  r.overhead = engine_.iteration_overhead;
  r.graph = engine_.cuda_graphs && b.prefills.empty();
  if (r.graph) {
    r.host_wait = engine_.host_launch_cost;  // one graph launch, then the kernels back to back
    return r;
  }
  // Eager: every kernel launched in order at host_launch_cost; the GPU waits wherever the host falls behind.
  const auto issue = [&](const auto& times) {
    std::vector<Op> ops;
    std::vector<Time> stream;
    for (std::size_t s = 0; s < times.size(); ++s) {
      if (times[s] <= Time::zero()) continue;
      ops.emplace_back();
      stream.push_back(times[s]);
    }
    return HostIssue::of(ops, stream, LaunchCosts::uniform(engine_.host_launch_cost));
  };
  // The layers in order, as runs of one kind (HostIssue::then is associative: a run of n equal layers is
  // composed by repeated squaring).
  std::optional<HostIssue> variants[4];
  HostIssue run = issue(std::array<Time, 1>{tk.embedding});
  for (const auto& [variant, count] : layer_runs_) {
    if (!variants[variant]) variants[variant] = issue(layer(variant >= 2, variant % 2 == 1));
    HostIssue power = *variants[variant];
    for (int n = count; n > 0; n /= 2) {
      if (n % 2 == 1) run = run.then(power);
      if (n > 1) power = power.then(power);
    }
  }
  std::array<Time, 6> tail{tk.final_norm, logits, gather, cast, sample, Time::zero()};
  run = run.then(issue(tail));
  for (int s = 1; s < shard_.pp; ++s) run = run.then(issue(std::array<Time, 1>{tk.stage_send}));
  r.host_wait = run.wait();
  return r;
}

Time IterationCost::price(const BatchShape& b) const { return breakdown(b).total(); }

}  // namespace cs
