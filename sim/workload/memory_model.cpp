#include "sim/workload/memory_model.hpp"

#include <algorithm>
#include <map>

#include "sim/workload/pipeline_schedule.hpp"

namespace cs {
namespace {

/// Layers of each kind that stage `stage` holds (all virtual chunks together).
std::map<LayerKind, int> stage_layers(const ModelSpec& m, const ParallelPlan& p, int stage) {
  std::map<LayerKind, int> kinds;
  for (int c = 0; c < p.chunks(); ++c) {
    const auto [first, last] = virtual_stage_layers(m, p, p.piece(stage, c));
    for (int l = first; l < last; ++l) ++kinds[m.layer_kind(l)];
  }
  return kinds;
}

/// Parameters one GPU holds of one layer of kind `k`: attention, dense MLPs and Mamba mixers split over TP;
/// routed experts over EP (and expert TP), shared experts over TP, the router replicated.
double layer_params_per_gpu(const ModelSpec& m, const ParallelPlan& p, LayerKind k) {
  const double routed = static_cast<double>(m.experts) / p.ep * m.ffn_params(true) / p.etp() +
                        m.shared_experts * m.ffn_params(true) / p.tp + static_cast<double>(m.hidden) * m.experts;
  switch (k) {
    case LayerKind::dense: return (m.attention_params() + m.ffn_params()) / p.tp;
    case LayerKind::moe: return m.attention_params() / p.tp + routed;
    case LayerKind::mamba: return m.mamba_params() / p.tp;
    case LayerKind::attention: return m.attention_params() / p.tp;
    case LayerKind::mlp: return m.ffn_params() / p.tp;
    case LayerKind::moe_mlp: return routed;
  }
  return 0.0;
}

/// Whether pipeline rank `stage` holds the model's last piece (output head, loss, MTP modules): the last rank,
/// and under DualPipe the first too.
bool holds_last_piece(const ParallelPlan& p, int stage) {
  for (int c = 0; c < p.chunks(); ++c) {
    if (p.piece(stage, c) == p.pieces() - 1) return true;
  }
  return false;
}

/// Whether a schedule's activations are counted from its order (held_activations_peak) rather than in closed form.
bool counted_from_order(const ParallelPlan& p) {
  return splits_backward(p.schedule) || !flushes(p.schedule);
}

}  // namespace

std::vector<double> chunk_activation_bytes(const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t, int stage) {
  std::vector<double> out;
  for (int c = 0; c < p.chunks(); ++c) {
    const auto [first, last] = virtual_stage_layers(m, p, p.piece(stage, c));
    double bytes = 0;
    for (int l = first; l < last; ++l) bytes += activation_bytes_per_layer(m, p, t, m.layer_kind(l)).value();
    if (p.piece(stage, c) == p.pieces() - 1 && m.mtp_layers > 0) {
      bytes += m.mtp_layers * activation_bytes_per_layer(m, p, t, m.layer_kind(m.layers - 1)).value();
    }
    out.push_back(bytes);
  }
  return out;
}

double params_per_gpu(const ModelSpec& m, const ParallelPlan& p, int stage) {
  const double h = static_cast<double>(m.hidden);
  double params = 0;
  for (const auto& [kind, n] : stage_layers(m, p, stage)) params += n * layer_params_per_gpu(m, p, kind);
  // The first piece holds the embedding, the last the output head (and the MTP modules); under DualPipe the
  // first and the last rank each hold both.
  bool first = false;
  for (int c = 0; c < p.chunks(); ++c) first |= p.piece(stage, c) == 0;
  const bool last = holds_last_piece(p, stage);
  const double embed = static_cast<double>(m.vocab) * h / p.tp;
  if (first) params += embed;
  if (last && !(m.tied_embeddings && p.pp == 1)) params += embed;
  if (last && m.mtp_layers > 0) {
    // Each multi-token prediction module: a layer of the model's last kind, its 2h -> h projection and norms
    // (the embedding and output head are shared).
    params += m.mtp_layers * (layer_params_per_gpu(m, p, m.layer_kind(m.layers - 1)) + 2.0 * h * h / p.tp);
  }
  return params;
}

Bytes activation_bytes_per_layer(const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t, LayerKind kind) {
  const double sb = static_cast<double>(t.seq_len) / p.cp * t.micro_batch;
  const bool moe_layer = kind == LayerKind::moe || kind == LayerKind::moe_mlp;
  const double h = static_cast<double>(m.hidden), q = static_cast<double>(m.q_dim()), o = static_cast<double>(m.o_dim());
  const double kv = static_cast<double>(m.k_dim() + m.v_dim());
  const double tp = p.tp;
  if (t.recompute == Recompute::full) return Bytes{2.0 * sb * h / (p.sequence_parallel ? tp : 1.0)};
  const double gemm_input = is_quantized(t.precision) ? bytes_per_element(t.precision) : 2.0;  // see below
  const RecomputeModules& rm = t.recompute_modules;
  // Per block (attention, FFN, or a hybrid model's single block), outside TP: the norm's 16-bit input, the
  // residual dropout's 1-byte mask and the norm's output, the block's first GEMM input.
  const double block_outside = 3.0 * h + (rm.layernorm ? 0.0 : gemm_input * h);
  const double sp = p.sequence_parallel ? tp : 1.0;
  if (kind == LayerKind::mamba) {
    // A Mamba-2 mixer on the memory-efficient path keeps in_proj's output [z, x, B, C, dt] and the scan's output
    // (recomputing the convolution and the chunk states in the backward), the gated norm's input (the scan's
    // output, the same tensor) and its output, out_proj's input; all split over TP by heads and groups.
    const double inside = 2.0 * static_cast<double>(m.mamba_in_proj()) + 2.0 * static_cast<double>(m.mamba_inner()) +
                          gemm_input * static_cast<double>(m.mamba_inner());
    return Bytes{sb * (block_outside / sp + inside / tp)};
  }
  // Per token, 16-bit tensors (2 bytes) and 1-byte dropout masks:
  //   outside TP regions: two norm inputs (4h), QKV and FFN-up inputs (4h), two dropout masks (2h) = 10h
  //   attention inside TP: Q, K, V (2q + 2k + 2v) and the attention output (2o), q = o = heads x head_dim
  //   (= h usually); MLA adds its latents, replicated on every TP rank: the normalised query and key/value
  //   latents and their norm inputs (4 bytes per latent element)
  //   FFN inside TP: up(+gate) output 2f(x2) and activation output 2f
  //   (an MoE layer: once per routed copy, top_k, and once per shared expert, of the expert FFN)
  const double f = static_cast<double>(moe_layer ? m.expert_ffn_hidden : m.ffn_hidden);
  // Under fp8, Transformer Engine saves the GEMM inputs it already cast: the QKV and FFN-up inputs (outside TP)
  // and the FFN-down input (the activation output) take 1 byte instead of 2 (gemm_input above).
  // Fine-grained recompute (Megatron-Core recompute_modules) drops what the named modules would keep:
  // layernorm the norm outputs (the QKV and FFN-up inputs), mla_up_proj Q, K and V, mlp a dense FFN's inside
  // tensors, moe all of an MoE FFN's, moe_act the routed experts' activation outputs, shared_experts theirs.
  const double per_copy = 2.0 * f * (m.gated_ffn ? 2.0 : 1.0) + gemm_input * f;  // one token through one FFN
  double ffn = 0;
  if (!moe_layer) {
    ffn = rm.mlp ? 0.0 : per_copy;
  } else if (!rm.moe) {
    ffn = m.top_k * (rm.moe_act ? per_copy - gemm_input * f : per_copy) + (rm.shared_experts ? 0.0 : m.shared_experts * per_copy);
  }
  const double qkv = m.is_mla() && rm.mla_up_proj ? 0.0 : 2.0 * q + 2.0 * kv;
  double attention = qkv + 2.0 * o;
  // Unfused attention keeps the scores, the softmax output (2 B each) and the dropout mask (1 B) per head and key:
  // Korthikanti et al.'s 5*a*s/h term, removed by selective recompute.
  if (t.attention == AttentionKernel::unfused && t.recompute == Recompute::none) {
    attention += 5.0 * m.heads * static_cast<double>(t.seq_len);
  }
  const double replicated = m.is_mla() ? 4.0 * static_cast<double>(m.q_lora_rank + m.kv_lora_rank) : 0.0;
  // A transformer layer is an attention block and an FFN block; a hybrid model's layer is one of them.
  const bool has_attention = kind == LayerKind::dense || kind == LayerKind::moe || kind == LayerKind::attention;
  const bool has_ffn = kind != LayerKind::attention;
  const double blocks = (has_attention ? 1.0 : 0.0) + (has_ffn ? 1.0 : 0.0);
  const double inside = (has_attention ? attention : 0.0) + (has_ffn ? ffn : 0.0);
  const double per_token = blocks * block_outside / sp + inside / tp + (has_attention ? replicated : 0.0);
  return Bytes{sb * per_token};
}

MemoryBreakdown peak_memory_per_gpu(const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t) {
  MemoryBreakdown best;
  const double shard = static_cast<double>(p.dp) * p.cp;
  // The working weights in the format they are gathered in (16-bit; fp8 or NVFP4 parameters), plus the quantised
  // copy and its transpose that Transformer Engine caches across micro-batches when the parameters stay 16-bit.
  const double weight_bytes = gathered_param_bytes(t) + cached_weight_copy_bytes(t);
  const double grad_bytes = reduced_gradient_bytes(t);  // the full-size gradient buffer
  const double optim_bytes = optimizer_state_bytes(t);  // Adam m and v (+ master weights in mixed precision)
  // The closed forms below hold their peak on the first or the last rank; an order counted unit by unit (zero-bubble,
  // V-shaped and PipeDream schedules) may peak on any rank.
  std::vector<int> stages{0, p.pp - 1};
  if (counted_from_order(p)) {
    stages.clear();
    for (int s = 0; s < p.pp; ++s) stages.push_back(s);
  }
  const int mbs = static_cast<int>(t.micro_batches(p));
  const std::vector<std::vector<PipelineUnit>> orders =
      counted_from_order(p) ? pipeline_orders(p, mbs, merges_forward_backward(m, p, t)) : std::vector<std::vector<PipelineUnit>>{};
  for (const int stage : stages) {
    MemoryBreakdown b;
    b.stage = stage;
    const double params = params_per_gpu(m, p, stage);
    b.weights = Bytes{params * weight_bytes / (p.zero_stage >= 3 ? shard : 1.0)};
    b.weight_versions = weight_versions(p, stage);
    b.stashed_weights = b.weights * static_cast<double>(b.weight_versions - 1);
    b.gradients = Bytes{params * grad_bytes / (p.zero_stage >= 2 ? shard : 1.0)};
    b.optimizer = Bytes{params * optim_bytes / (p.zero_stage >= 1 ? shard : 1.0)};

    // Micro-batches whose activations stage `stage` holds at the peak of the schedule.
    const auto kinds = stage_layers(m, p, stage);
    double in_flight = 1.0;
    const auto mb = static_cast<double>(t.micro_batches(p));
    switch (p.schedule) {
      case PipelineSchedule::gpipe: in_flight = mb; break;
      case PipelineSchedule::one_f_one_b: in_flight = std::min<double>(mb, p.pp - stage); break;
      case PipelineSchedule::interleaved:
        // Korthikanti et al. Sec. 4.2.3: the first stage holds p * (1 + (p-1)/(p*v)) micro-batches' worth.
        in_flight = std::min<double>(mb, (p.pp - stage) * (1.0 + (p.pp - 1.0) / (p.pp * p.virtual_stages)));
        break;
      case PipelineSchedule::dualpipe:
        // DualPipe holds pp + 1 micro-batches of one piece (arXiv 2412.19437 Table 2); `layers` below counts
        // both of the rank's pieces, hence the half.
        in_flight = std::min<double>(mb, p.pp + 1.0) / 2.0;
        break;
      default: break;  // counted from the order below
    }
    // The merged forward-backward schedule of EP overlap runs one more forward in the warm-up.
    // (DualPipe's pp + 1 already counts it.)
    if (merges_forward_backward(m, p, t) && p.schedule != PipelineSchedule::dualpipe) in_flight = std::min(mb, in_flight + 1.0);
    double per_micro_batch = 0;
    for (const auto& [kind, n] : kinds) per_micro_batch += n * activation_bytes_per_layer(m, p, t, kind).value();
    double act = in_flight * per_micro_batch;
    if (counted_from_order(p)) {
      // The rank's own order, unit by unit: each forward holds its chunk's activations until the weight gradient
      // that needs them has run (W, or the whole backward). The merged forward-backward order runs its extra
      // forward first, so it is counted too.
      const std::vector<double> chunks = chunk_activation_bytes(m, p, t, stage);
      const HeldActivations held = held_activations_at_peak(orders[static_cast<std::size_t>(stage)], chunks);
      act = held.total;
      b.activations_awaiting_w = Bytes{held.awaiting_weight_grad};
    }
    const bool last = holds_last_piece(p, stage);
    if (last && m.mtp_layers > 0 && !counted_from_order(p)) {  // (counted with the last piece's chunk above)
      act += in_flight * m.mtp_layers * activation_bytes_per_layer(m, p, t, m.layer_kind(m.layers - 1)).value();
    }
    const double tokens = static_cast<double>(t.seq_len) / p.cp * t.micro_batch;
    if (last) act += tokens * static_cast<double>(m.vocab) / p.tp * (4.0 + 2.0);  // fp32 logits + bf16
    if (p.zero_stage >= 3) {
      // Two layers' weights gathered at a time (the one running and the one prefetched): the largest kind's.
      double widest = 0;
      for (const auto& [kind, n] : kinds) widest = std::max(widest, layer_params_per_gpu(m, p, kind));
      act += 2.0 * widest * weight_bytes;
    }
    b.activations = Bytes{act};
    // NCCL channel buffers for the TP, DP and PP communicators (NCCL_BUFFSIZE 4 MiB x channels x peers).
    b.comm_buffers = Bytes{0.5 * 1073741824.0};
    b.workspace = Bytes{1.0 * 1073741824.0};  // CUDA context (~0.5 GiB) plus cuBLAS/cuDNN workspaces
    b.fragmentation = Bytes{0.05 * (b.weights + b.stashed_weights + b.gradients + b.optimizer + b.activations).value()};
    if (b.total() > best.total()) best = b;
  }
  return best;
}

}  // namespace cs
