#include "sim/workload/layer_ops.hpp"

#include <algorithm>
#include <cmath>

namespace cs {
namespace {

constexpr double kAct = 2.0;  // activations and gradients are 16-bit in every supported recipe

struct Builder {
  const ModelSpec& m;
  const ParallelPlan& p;
  const TrainingConfig& t;
  std::vector<Op> ops;
  bool windowed = false;  ///< this layer's attention is restricted to the model's sliding window

  [[nodiscard]] std::int64_t tokens() const { return static_cast<std::int64_t>(t.micro_batch) * t.seq_len / p.cp; }
  /// Tokens a GPU holds outside the tensor-parallel regions (sharded by TP under sequence parallelism).
  [[nodiscard]] double sp_tokens() const {
    return static_cast<double>(tokens()) / (p.sequence_parallel ? p.tp : 1);
  }
  [[nodiscard]] DType gemm_dtype() const { return t.precision; }

  /// A GEMM with `rows` x k activations (per group) against k x n weights. Under fp8 (Transformer Engine)
  /// the activation is cast to fp8 with its transpose kept for the weight gradient: read 2 bytes, write 1+1,
  /// and with current scaling (per-tensor amax computed just in time) read once more first. NVFP4 (fp4) casts
  /// the same way to 4-bit values with 16-element block scales (0.5625 bytes, a row-wise and a column-wise
  /// copy, the latter through the random Hadamard transform fused into the cast), after the pass that finds
  /// the per-tensor amax of its second-level scale: priced as current scaling's cast at fp4's size. `fused_cast`: the
  /// cast rides on the norm or activation kernel that produces the input (LayerNormLinear, LayerNormMLP), so
  /// only the fp8 writes remain. The backward casts the output gradient the same way. Weights are cast once
  /// per step, not per micro-batch (TE caches them; see UnitCosts::optimizer). `bf16` keeps a GEMM out of fp8
  /// (the output layer and the MoE router stay in 16-bit in Megatron-Core's fp8 recipes).
  void gemm(std::string name, std::int64_t rows, std::int64_t n, std::int64_t k, std::int64_t batch = 1,
            bool fused_cast = false, bool bf16 = false) {
    const DType dtype = bf16 && is_quantized(t.precision) ? DType::bf16 : gemm_dtype();
    Op op{std::move(name), OpKind::gemm};
    op.gemm = GemmShape{rows, n, k, dtype, batch};
    op.model_flops = op.gemm.flops();
    if (is_quantized(dtype)) {
      const bool amax_pass = dtype == DType::fp4 || t.fp8_recipe == Fp8Recipe::current;
      const double amax = amax_pass ? 2.0 : 0.0;
      const double copies = 2.0 * bytes_per_element(dtype);  // row-wise and column-wise
      const double in = static_cast<double>(rows * k * batch), out = static_cast<double>(rows * n * batch);
      Op cast{op.name + " " + std::string(to_string(dtype)) + " cast", OpKind::memory};
      cast.bytes = Bytes{in * ((fused_cast ? 0.0 : 2.0) + copies + amax)};
      cast.backward_scale = out * (2.0 + copies + amax) / cast.bytes.value();
      // A grouped GEMM's inputs are quantised expert by expert (TE split_quantize): under current scaling (and
      // NVFP4's per-tensor amax) each expert's tensor takes four kernels (zero the amax, amax, scale, cast);
      // delayed scaling fuses them into one multi-tensor cast-transpose.
      if (batch > 1 && amax_pass) cast.launches = 4 * static_cast<int>(batch);
      ops.push_back(std::move(cast));
    }
    ops.push_back(std::move(op));
  }
  /// Marks the ops from `first` on as part of recompute module `bit`.
  void tag(std::size_t first, unsigned bit) {
    for (std::size_t i = first; i < ops.size(); ++i) ops[i].recompute_modules |= bit;
  }
  /// Marks the ops from `first` on as part of CUDA-graph module `bit`.
  void graph_tag(std::size_t first, unsigned bit) {
    for (std::size_t i = first; i < ops.size(); ++i) ops[i].graph_modules |= bit;
  }
  void memory(std::string name, double bytes) {
    Op op{std::move(name), OpKind::memory};
    op.bytes = Bytes{bytes};
    ops.push_back(std::move(op));
  }
  void collective(std::string name, CollectiveKind k, CommGroup g, double bytes) {
    const int n = g == CommGroup::tp ? p.tp : g == CommGroup::cp ? p.cp : p.ep;
    if (n <= 1) return;
    Op op{std::move(name), OpKind::collective};
    op.collective = k;
    op.group = g;
    op.bytes = Bytes{bytes};
    ops.push_back(std::move(op));
  }
  /// Entering a tensor-parallel region: an all-gather of the sequence shards (SP) or nothing.
  void enter_tp(const std::string& what) {
    if (p.sequence_parallel) collective(what + " TP all-gather", CollectiveKind::all_gather, CommGroup::tp, static_cast<double>(tokens()) * m.hidden * kAct);
  }
  /// Leaving one: reduce-scatter (SP) or all-reduce of the partial sums.
  void leave_tp(const std::string& what) {
    const double bytes = static_cast<double>(tokens()) * m.hidden * kAct;
    if (p.sequence_parallel) collective(what + " TP reduce-scatter", CollectiveKind::reduce_scatter, CommGroup::tp, bytes);
    else collective(what + " TP all-reduce", CollectiveKind::all_reduce, CommGroup::tp, bytes);
  }

  void attention_block() {
    // q: the queries' width, heads x head_dim (= h unless the model sets head_dim); o: the attention output's.
    const std::int64_t T = tokens(), h = m.hidden, q = m.q_dim(), o = m.o_dim();
    const std::size_t block = ops.size();
    memory("input norm", 2.0 * sp_tokens() * h * kAct);
    tag(ops.size() - 1, RecomputeModules::kLayernorm);
    enter_tp("attention");
    const std::int64_t kv_heads_local = std::max<std::int64_t>(1, m.kv_heads / p.tp);
    const std::int64_t k_local = kv_heads_local * m.qk_head_dim(), v_local = kv_heads_local * m.v_head_dim();
    if (m.is_mla()) {
      mla_projections();
    } else {
      gemm("QKV projection", T, q / p.tp + k_local + v_local, h, 1, true);
      // QK norm (Qwen3): TE's RMSNorm over each query and key head, read and written once.
      if (m.qk_norm) memory("QK norm", 2.0 * static_cast<double>(T) * static_cast<double>(q / p.tp + k_local) * kAct);
      if (m.rope_mscale != 1.0) unfused_rope(static_cast<double>(T) * static_cast<double>(q / p.tp + k_local));
    }
    // Megatron-LM's FLOP formula counts the full (non-causal) score matrix: 4*b*s*s*q per layer forward, i.e.
    // 2*b*s*s*heads*(qk_head_dim + v_head_dim) when the value heads are narrower (MLA).
    const Flops attention_flops{t.micro_batch * (static_cast<double>(t.seq_len) / p.cp) * t.seq_len *
                                m.attention_pair_flops() / p.tp};
    if (t.attention != AttentionKernel::unfused) {
      // The fused kernel's cost models take one head width; with narrower value heads (MLA: 192 for Q and K,
      // 128 for V) it is the FLOP-equivalent width (qk + v) / 2, which gives the kernel its exact FLOPs.
      Op a{"attention", OpKind::attention};
      a.attention = AttentionShape{t.micro_batch, m.heads / p.tp, std::max(1, m.kv_heads / p.tp), t.seq_len / p.cp,
                                   t.seq_len, (m.qk_head_dim() + m.v_head_dim()) / 2, true, false, t.precision};
      a.attention.fp8 = t.fp8_attention && (t.precision == DType::fp8 || t.precision == DType::mxfp8);
      a.attention.kernel = t.attention == AttentionKernel::cudnn ? FusedAttention::cudnn : FusedAttention::flash;
      a.model_flops = attention_flops;
      if (windowed) {
        // Only the band's query-key pairs: the model-FLOP count keeps its convention (twice the causal pairs).
        const Flops causal = a.attention.flops();
        a.attention.window = m.sliding_window;
        a.model_flops = attention_flops * (a.attention.flops() / causal);
      }
      ops.push_back(a);
    } else {
      unfused_attention(attention_flops);
    }
    if (p.cp > 1) {
      // Ring attention passes each rank's K and V around the CP ring: cp-1 steps of one chunk each.
      collective("CP ring K/V exchange", CollectiveKind::all_gather, CommGroup::cp,
                 static_cast<double>(T) * static_cast<double>(k_local + v_local) * kAct * p.cp);
    }
    gemm("attention output projection", T, h, o / p.tp);
    leave_tp("attention");
    memory("residual add and dropout", 3.0 * sp_tokens() * h * kAct);
    graph_tag(block, CudaGraphModules::kAttn);
  }

  /// RoPE with YaRN's concentration factor, which Transformer Engine's fused kernel does not take: Megatron-Core's
  /// _apply_rotary_pos_emb_bshd on Q and on K, each cos(freqs) * mscale and sin(freqs) * mscale cast to 16-bit
  /// (three small kernels each), then t * cos, the rotated half (a negation of one half and a concatenation),
  /// times sin, their sum and a final concatenation with the pass-through part: 12 kernels per tensor forward, 8
  /// backward. Their cost is measured (H100 run 7, calibrate/studies/gpt_oss_extras_study.py): 42 bytes per
  /// element forward and 50 backward at the part's bandwidth (broadcast multiplies and last-dimension
  /// concatenations run well below a copy's rate). `elements`: Q's and K's together.
  void unfused_rope(double elements) {
    Op op{"RoPE, unfused (YaRN attention scaling)", OpKind::memory};
    op.bytes = Bytes{42.0 * elements};
    op.backward_scale = 50.0 / 42.0;
    op.launches = 2 * 12;
    op.backward_launches = 2 * 8;
    op.python_launches = true;
    ops.push_back(std::move(op));
  }

  /// Multi-head latent attention's projections (Megatron-Core MultiLatentAttention): the down projections to
  /// the query and key/value latents are replicated on every TP rank (their FLOPs are counted once in the
  /// model FLOPs), each latent is normalised, and the up projections are split over TP like QKV.
  void mla_projections() {
    const std::int64_t T = tokens(), h = m.hidden;
    const auto replicated = [&](std::string name, std::int64_t n, std::int64_t k) {
      gemm(std::move(name), T, n, k, 1, true);
      // The fp8 cast (if any) sits before the GEMM: scale the GEMM itself, the last op.
      ops.back().model_flops = ops.back().model_flops * (1.0 / p.tp);
    };
    const std::int64_t heads_local = std::max<std::int64_t>(1, m.heads / p.tp);
    if (m.q_lora_rank > 0) {
      replicated("Q down projection", m.q_lora_rank, h);
      memory("Q latent norm", 2.0 * static_cast<double>(T) * static_cast<double>(m.q_lora_rank) * kAct);
      const std::size_t q_up = ops.size();
      gemm("Q up projection", T, heads_local * m.qk_head_dim(), m.q_lora_rank);
      tag(q_up, RecomputeModules::kMlaUpProj);
    } else {
      gemm("Q projection", T, heads_local * m.qk_head_dim(), h, 1, true);
    }
    replicated("KV down projection", m.kv_lora_rank + m.rope_head_dim, h);
    memory("KV latent norm", 2.0 * static_cast<double>(T) * static_cast<double>(m.kv_lora_rank) * kAct);
    const std::size_t kv_up = ops.size();
    gemm("KV up projection", T, heads_local * (m.head_dim() + m.v_head_dim()), m.kv_lora_rank);
    tag(kv_up, RecomputeModules::kMlaUpProj);
  }

  /// Scores = Q K^T (batched over b x heads/tp), fused scale-mask-softmax, dropout, then probabilities x V.
  /// Each s x s element moves 2+2 bytes through the softmax and 2+2+1 through dropout (16-bit, 1-byte mask).
  void unfused_attention(Flops attention_flops) {
    const std::int64_t batch = static_cast<std::int64_t>(t.micro_batch) * (m.heads / p.tp);
    const std::int64_t sq = t.seq_len / p.cp, skv = t.seq_len, d = m.qk_head_dim(), dv = m.v_head_dim();
    const double scores = static_cast<double>(batch) * static_cast<double>(sq) * static_cast<double>(skv);
    const DType math = is_quantized(t.precision) ? DType::bf16 : t.precision;
    Op qk{"attention scores QK^T", OpKind::gemm};
    qk.gemm = GemmShape{sq, skv, d, math, batch};
    qk.model_flops = attention_flops * (static_cast<double>(d) / static_cast<double>(d + dv));
    qk.selective_recompute = true;
    qk.activation_product = true;
    ops.push_back(qk);
    Op softmax{"attention softmax", OpKind::memory};
    softmax.bytes = Bytes{4.0 * scores};
    softmax.selective_recompute = true;
    ops.push_back(softmax);
    Op dropout{"attention dropout", OpKind::memory};
    dropout.bytes = Bytes{5.0 * scores};
    dropout.selective_recompute = true;
    ops.push_back(dropout);
    Op pv{"attention probabilities x V", OpKind::gemm};
    pv.gemm = GemmShape{sq, dv, skv, math, batch};
    pv.model_flops = attention_flops * (static_cast<double>(dv) / static_cast<double>(d + dv));
    pv.activation_product = true;
    ops.push_back(pv);
  }

  void dense_ffn(std::int64_t f, const std::string& what = "FFN") {
    const std::int64_t T = tokens(), h = m.hidden;
    const std::size_t block = ops.size();
    memory(what + " norm", 2.0 * sp_tokens() * h * kAct);
    tag(ops.size() - 1, RecomputeModules::kLayernorm);
    const std::size_t mlp = ops.size();
    enter_tp(what);
    const std::int64_t up = f / p.tp * (m.gated_ffn ? 2 : 1);
    gemm(what + " up" + (m.gated_ffn ? "+gate" : ""), T, up, h, 1, true);
    memory(what + " activation", (static_cast<double>(up) + static_cast<double>(f / p.tp)) * T * kAct);
    gemm(what + " down", T, h, f / p.tp);
    leave_tp(what);
    tag(mlp, RecomputeModules::kMlp);
    memory(what + " residual add", 3.0 * sp_tokens() * h * kAct);
    graph_tag(block, CudaGraphModules::kMlp);
  }

  /// A Mamba-2 mixer (Dao & Gu 2024, "Transformers are SSMs"; Megatron-Core MambaMixer on its memory-efficient
  /// path, mamba_split_conv1d_scan_combined). A norm fused into the column-parallel in_proj h -> [z, x, B, C, dt]
  /// (heads and B/C groups split over TP), the causal depthwise convolution over x, B and C, the chunked scan
  /// (SSD) and a gated RMSNorm inside the TP region, then the row-parallel out_proj d_inner -> h. Under CP,
  /// Megatron-Core's MambaContextParallel trades the sequence split for a head split with an all-to-all before
  /// the convolution and back after the scan.
  ///
  /// The scan over chunks of L tokens, per head of P channels with state N and per group of B/C: C B^T within
  /// each chunk (L x L x N per group), the chunk's state B^T X (P x N x L per head), the states passed from
  /// chunk to chunk in fp32, and each chunk's output from its own tokens (causal: about half of L x L x P) and
  /// from the state it inherited (L x N x P). Its kernels (Triton) are batched small matrix products, priced as
  /// 16-bit GEMMs with the products stacked along their rows (Op::stacked); they stay in 16-bit under fp8
  /// recipes. The backward is priced as those GEMMs' data and weight gradients, one weight gradient per product;
  /// the recompute of the chunk states the memory-efficient backward does (a few per cent of the layer) is not
  /// priced separately.
  void mamba_block() {
    const std::int64_t T = tokens(), h = m.hidden;
    const std::int64_t heads = std::max<std::int64_t>(1, m.mamba_heads / p.tp);
    const std::int64_t groups = std::max<std::int64_t>(1, m.mamba_groups / p.tp);
    const std::int64_t P = m.mamba_head_dim, N = m.mamba_state, L = m.mamba_chunk;
    const std::int64_t inner = heads * P, proj = 2 * inner + 2 * groups * N + heads;
    const std::size_t mixer = ops.size();
    memory("Mamba input norm", 2.0 * sp_tokens() * h * kAct);
    tag(ops.size() - 1, RecomputeModules::kLayernorm);
    enter_tp("Mamba");
    gemm("Mamba in_proj", T, proj, h, 1, true);
    if (p.cp > 1) collective("Mamba CP all-to-all (sequence to heads)", CollectiveKind::all_to_all, CommGroup::cp, static_cast<double>(T) * proj * kAct);
    // After the CP exchange a rank holds the whole sequence for 1/cp of the heads and groups.
    const std::int64_t sh = std::max<std::int64_t>(1, heads / p.cp), sg = std::max<std::int64_t>(1, groups / p.cp);
    const double seq_tokens = static_cast<double>(T) * p.cp;
    const std::int64_t chunks = static_cast<std::int64_t>(t.micro_batch) * ((t.seq_len + L - 1) / L);
    const double conv_channels = static_cast<double>(sh * P + 2 * sg * N);
    // Convolution and SiLU over x, B and C: read and write them; the backward reads the input and the incoming
    // gradient, recomputes the convolution and writes the gradient.
    memory("Mamba conv1d", 2.0 * seq_tokens * conv_channels * kAct);
    ops.back().backward_scale = 3.0;
    // dt's softplus and the decay's cumulative sum within each chunk, fp32 per token and head.
    memory("SSD dt and decay cumsum", 3.0 * seq_tokens * static_cast<double>(sh) * 4.0);
    // Each scan kernel is one launch whose thread blocks each multiply one chunk's (and head's or group's) small
    // matrices: priced as one GEMM with the batch stacked along its rows, the way the blocks fill the GPU.
    const auto stacked = [&](std::string name, std::int64_t products, std::int64_t rows, std::int64_t n, std::int64_t k) {
      gemm(std::move(name), products * rows, n, k, 1, false, true);
      ops.back().stacked = static_cast<int>(products);
      ops.back().activation_product = true;
    };
    stacked("SSD chunk C B^T", chunks * sg, L, L, N);
    stacked("SSD chunk states", chunks * sh, P, N, L);
    // The chunk states in fp32: written, read and rewritten by the pass from chunk to chunk, read by the scan.
    memory("SSD state passing", 4.0 * static_cast<double>(chunks * sh) * static_cast<double>(P * N) * 4.0);
    stacked("SSD chunk scan (within the chunk)", chunks * sh, L, P, std::max<std::int64_t>(1, L / 2));
    stacked("SSD chunk scan (from the state)", chunks * sh, L, P, N);
    if (p.cp > 1) collective("Mamba CP all-to-all (heads to sequence)", CollectiveKind::all_to_all, CommGroup::cp, static_cast<double>(T) * inner * kAct);
    // Gated RMSNorm: read y and z, write the normalised product.
    memory("Mamba gated norm", 3.0 * static_cast<double>(T) * static_cast<double>(inner) * kAct);
    gemm("Mamba out_proj", T, h, inner);
    leave_tp("Mamba");
    memory("Mamba residual add", 3.0 * sp_tokens() * h * kAct);
    graph_tag(mixer, CudaGraphModules::kMamba);
  }

  /// A routed MoE FFN (Megatron-Core's alltoall token dispatcher). Each rank routes the tokens it holds (its
  /// sequence-parallel shard), sends top_k copies of each to the expert-parallel ranks owning the experts, the
  /// expert-TP group gathers what its ranks received, and each rank runs its experts as one grouped GEMM over
  /// the expert FFN split by expert_tp. With MoE parallel folding the expert groups need not follow the
  /// attention's TP: expert_tp = 1 means no TP collective inside the expert layer. The busiest rank receives
  /// moe_load_imbalance times the balanced share, and everyone waits for it; with token dropping every rank
  /// computes exactly the capacity (moe_capacity_factor times the share, padded).
  void moe_ffn() {
    const std::int64_t T = tokens(), h = m.hidden;
    const double local = sp_tokens();  // tokens this rank routes
    const int etp = p.etp();
    const std::size_t whole = ops.size();
    memory("MoE norm", 2.0 * local * h * kAct);
    tag(ops.size() - 1, RecomputeModules::kLayernorm);
    const std::size_t block = ops.size();
    gemm("router", static_cast<std::int64_t>(local), m.experts, h, 1, false, true);
    // Router softmax / top-k / aux-loss kernels over fp32 scores: a few passes of tokens x experts x 4 bytes.
    memory("router top-k and aux loss", 4.0 * local * m.experts * 4.0);
    graph_tag(whole, CudaGraphModules::kMoeRouter);
    const double copies = local * m.top_k;  // routed token copies leaving this rank
    const double received = copies * etp * t.moe_rows_factor();  // rows this rank's experts compute
    // Fused (TE's moe_permute): each copy read and written once, forward and backward. Unfused (PyTorch ops,
    // Megatron-Core's permute() without moe_permute_fusion): the transposed routing map, the token indices and
    // two masked_selects (indices and probabilities) before the index_select, whose gradient is an atomic
    // index_add_ of every copy into its token.
    memory("token permutation", 2.0 * copies * h * kAct);
    if (!t.moe_permute_fusion) {
      Op& perm = ops.back();
      perm.name += " (unfused)";
      perm.backward_scale = kAtomicScatterBytesPerElement * copies * static_cast<double>(h) / perm.bytes.value();
      perm.launches = 10;
      perm.backward_launches = 4;
      perm.python_launches = true;
    }
    collective("EP dispatch all-to-all", CollectiveKind::all_to_all, CommGroup::ep, copies * h * kAct * t.moe_rows_factor());
    // The all-to-all's split sizes (and, without EP, the grouped GEMM's row counts) are host values: the
    // dropless dispatcher copies the counts from the GPU and waits for them (Megatron-Core cuda_sync_point);
    // padded to a capacity they are known in advance.
    const std::size_t sync_at = p.ep > 1 ? ops.size() - 1 : ops.size();
    if (etp > 1) {
      // The expert-TP ranks gather the tokens each received (priced on the TP group: exact when expert_tp = tp).
      collective("expert TP all-gather", CollectiveKind::all_gather, CommGroup::tp, received * h * kAct);
    }
    const int local_experts = m.experts / p.ep;
    const std::int64_t per_expert = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(received / local_experts)));
    const std::int64_t f = m.expert_ffn_hidden / etp;
    const std::int64_t up = f * (m.gated_ffn ? 2 : 1);
    if (p.ep > 1 && local_experts > 1) {
      // What arrives from the EP ranks is grouped by source rank; the dispatcher regroups it by local expert
      // (Megatron-Core sort_chunks_by_idxs) and restores the order before the combine.
      memory("received tokens sorted by expert", 2.0 * received * h * kAct);
    }
    // Megatron-Core's TEGroupedMLP under fp8 (or fp4) pads each expert's rows to the quantised GEMM's alignment
    // (Fp8Padding: 16 rows, 32 for MXFP8) and cuts the padding off the output (Fp8Unpadding), each one copy of the
    // rows through TE's fused_multi_row_padding, and their gradients the same backward. Dropless routing leaves
    // the counts unaligned, so the copies run; counts padded to a capacity skip them (TE returns the input when
    // every count is aligned). Measured (H100 run 12, 16 experts, 65,536 rows of 2,048, fp8 current scaling):
    // three padding and three unpadding kernels per layer, forward and backward, 0.79 ms. A router that pads the
    // counts itself (moe_router_padding) leaves nothing to copy.
    const bool fp8_padding = is_quantized(t.precision) && t.grouped_launch == GroupedLaunch::native &&
                             t.moe_capacity_factor <= 0.0 && !t.moe_router_padding;
    // Each is a plain autograd function around one TE kernel: the host pays PyTorch's cost per kernel for it, not
    // a Transformer Engine module's.
    const auto row_copy = [&](std::string name) {
      memory(std::move(name), 2.0 * received * h * kAct);
      ops.back().backward_scale = 1.0;  // the gradient's copy: read and write it once
      ops.back().python_launches = true;
    };
    if (fp8_padding) row_copy("expert rows padded for " + std::string(to_string(t.precision)));
    // Transformer Engine's GroupedLinear launches one cuBLAS GEMM per local expert from a host loop (its
    // multi-stream path; a single grouped kernel exists only for 16-bit inputs behind an opt-in switch).
    gemm("expert up" + std::string(m.gated_ffn ? "+gate" : ""), per_expert, up, h, local_experts);
    ops.back().launches = local_experts;
    if (t.moe_host_sync && t.moe_capacity_factor <= 0.0) ops[sync_at].host_sync = true;
    memory("expert activation", static_cast<double>(up + f) * static_cast<double>(per_expert * local_experts) * kAct);
    tag(ops.size() - 1, RecomputeModules::kMoeAct);
    gemm("expert down", per_expert, h, f, local_experts);
    ops.back().launches = local_experts;
    if (m.expert_bias) {
      // TEGroupedMLP._apply_bias: per local expert, bias x prob (fp32, the router's probabilities) and its add to
      // the expert's rows (fp32), then one concatenation and the cast back to 16-bit (2 kernels per expert and 2);
      // autograd's backward casts the gradient and reduces grad x prob over the rows (the bias gradient) and
      // grad x bias over the width (the probability gradient), 8 kernels per expert and 5. Measured (H100 run 7,
      // calibrate/studies/gpt_oss_extras_study.py, 4-16 experts of 1,024-4,096 rows of 2,880): 38 bytes per
      // element of the experts' output forward and 61 backward at the part's bandwidth.
      Op bias{"expert output bias (per-expert loop)", OpKind::memory};
      const double elements = static_cast<double>(per_expert * local_experts) * static_cast<double>(h);
      bias.bytes = Bytes{38.0 * elements};
      bias.backward_scale = 61.0 / 38.0;
      bias.launches = 2 * local_experts + 2;
      bias.backward_launches = 8 * local_experts + 5;
      bias.python_launches = true;
      ops.push_back(std::move(bias));
    }
    if (fp8_padding) row_copy("expert rows unpadded");
    if (p.ep > 1 && local_experts > 1) memory("expert outputs restored to source order", 2.0 * received * h * kAct);
    if (etp > 1) {
      collective("expert TP reduce-scatter", CollectiveKind::reduce_scatter, CommGroup::tp, received * h * kAct);
    }
    collective("EP combine all-to-all", CollectiveKind::all_to_all, CommGroup::ep, copies * h * kAct * t.moe_rows_factor());
    // Unpermute: gather the top_k copies back into token order and sum them weighted by the router. Unfused:
    // the copies times their probabilities (read and write), a zeroed output, and the atomic scatter_add_ of the
    // copies into it; its backward gathers the gradient to the copies and multiplies it back (read the gradient
    // and the saved copies, write the copies' gradient and the probabilities' partial sums).
    memory("token unpermutation", (2.0 * copies + local) * h * kAct);
    if (!t.moe_permute_fusion) {
      Op& un = ops.back();
      const double elements = copies * static_cast<double>(h);
      const double gather = 2.0 * elements * kAct, multiply_back = 3.0 * elements * kAct + elements * kAct;
      un.name += " (unfused)";
      un.bytes = Bytes{2.0 * elements * kAct + local * h * kAct + kAtomicScatterBytesPerElement * elements};
      un.backward_scale = (gather + multiply_back) / un.bytes.value();
      un.launches = 3;
      un.backward_launches = 4;
      un.python_launches = true;
    }
    if (m.shared_experts > 0) {
      const std::int64_t fs = m.expert_ffn_hidden * m.shared_experts / p.tp;
      const std::size_t shared = ops.size();
      gemm("shared expert up", T, fs * (m.gated_ffn ? 2 : 1), h);
      gemm("shared expert down", T, h, fs);
      tag(shared, RecomputeModules::kSharedExperts);
      graph_tag(shared, CudaGraphModules::kMoeRouter);  // captured with the router unless overlapped
    }
    tag(block, RecomputeModules::kMoe);
    memory("MoE residual add", 3.0 * sp_tokens() * h * kAct);
    graph_tag(whole, CudaGraphModules::kMoe);
  }
};

}  // namespace

LayerPart layer_part(LayerKind k) noexcept {
  switch (k) {
    case LayerKind::dense: return LayerPart::dense_layer;
    case LayerKind::moe: return LayerPart::moe_layer;
    case LayerKind::mamba: return LayerPart::mamba_layer;
    case LayerKind::attention: return LayerPart::attention_layer;
    case LayerKind::mlp: return LayerPart::mlp_layer;
    case LayerKind::moe_mlp: return LayerPart::moe_mlp_layer;
  }
  return LayerPart::dense_layer;
}

std::vector<Op> forward_ops(LayerPart part, const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t,
                            bool windowed_attention) {
  Builder b{m, p, t, {}, windowed_attention && m.sliding_window > 0};
  switch (part) {
    case LayerPart::dense_layer:
      b.attention_block();
      b.dense_ffn(m.ffn_hidden);
      break;
    case LayerPart::moe_layer:
      b.attention_block();
      b.moe_ffn();
      break;
    case LayerPart::mamba_layer:
      b.mamba_block();
      break;
    case LayerPart::attention_layer:
      b.attention_block();
      break;
    case LayerPart::mlp_layer:
      b.dense_ffn(m.ffn_hidden, "MLP");
      break;
    case LayerPart::moe_mlp_layer:
      b.moe_ffn();
      break;
    case LayerPart::embedding:
      b.memory("embedding lookup", 2.0 * b.sp_tokens() * m.hidden * kAct);
      break;
    case LayerPart::mtp_head: {
      // DeepSeek-V3 section 2.2 / Megatron-Core MultiTokenPredictionLayer: embed the shifted tokens, normalise
      // them and the previous depth's hidden states, concatenate, project 2h -> h (column-parallel), then the
      // module's transformer layer (priced as a layer of its own) and the shared head and loss once more.
      b.memory("MTP embedding lookup", 2.0 * b.sp_tokens() * m.hidden * kAct);
      b.memory("MTP norms", 2.0 * 2.0 * b.sp_tokens() * m.hidden * kAct);
      b.enter_tp("MTP projection");
      b.gemm("MTP projection", b.tokens(), m.hidden / p.tp, 2 * m.hidden);
      b.leave_tp("MTP projection");
      b.memory("MTP final norm", 2.0 * b.sp_tokens() * m.hidden * kAct);
      b.enter_tp("MTP logits");
      b.gemm("MTP logits", b.tokens(), m.vocab / p.tp, m.hidden, 1, false, true);
      b.memory("MTP cross-entropy", 3.0 * static_cast<double>(b.tokens()) * static_cast<double>(m.vocab / p.tp) * 4.0);
      break;
    }
    case LayerPart::output: {
      b.memory("final norm", 2.0 * b.sp_tokens() * m.hidden * kAct);
      b.enter_tp("logits");
      b.gemm("logits", b.tokens(), m.vocab / p.tp, m.hidden, 1, false, true);
      // Fused cross-entropy over fp32 logits: read, exp, normalise.
      b.memory("cross-entropy", 3.0 * static_cast<double>(b.tokens()) * static_cast<double>(m.vocab / p.tp) * 4.0);
      break;
    }
  }
  return b.ops;
}

std::vector<Op> backward_ops(const std::vector<Op>& forward) {
  std::vector<Op> out;
  for (auto it = forward.rbegin(); it != forward.rend(); ++it) {
    const Op& f = *it;
    switch (f.kind) {
      case OpKind::gemm: {
        // dX = dY * W^T (m x k, inner n) and dW = X^T * dY (k x n, inner m); each has the forward's FLOPs.
        // PyTorch runs them as cuBLAS NN and NT calls (the forward is TN), which calibrate differently.
        Op dx{f.name + " dgrad", OpKind::gemm};
        dx.selective_recompute = false;
        dx.gemm = GemmShape{f.gemm.m, f.gemm.k, f.gemm.n, f.gemm.dtype, f.gemm.batch, GemmLayout::nn};
        dx.model_flops = f.model_flops;
        dx.launches = f.launches;
        Op dw{f.name + " wgrad", OpKind::gemm};
        dw.gemm = GemmShape{f.gemm.k, f.gemm.n, f.gemm.m, f.gemm.dtype, f.gemm.batch, GemmLayout::nt};
        if (f.stacked > 1) {  // one weight gradient per stacked product: k x n over its own m / stacked rows
          dw.gemm.m = f.gemm.k * f.stacked;
          dw.gemm.k = f.gemm.m / f.stacked;
        }
        dw.stacked = dx.stacked = f.stacked;
        dw.weight_gradient = !f.activation_product;
        dw.model_flops = f.model_flops;
        dw.launches = f.launches;
        dx.graph_modules = dw.graph_modules = f.graph_modules;
        out.push_back(std::move(dx));
        out.push_back(std::move(dw));
        break;
      }
      case OpKind::attention: {
        Op b = f;
        b.name += " backward";
        b.attention.backward = true;
        b.model_flops = f.model_flops * 2.0;
        out.push_back(std::move(b));
        break;
      }
      case OpKind::memory: {
        Op b = f;
        b.name += " backward";
        b.bytes = f.bytes * f.backward_scale;
        b.selective_recompute = false;
        if (f.backward_launches > 0) b.launches = f.backward_launches;
        b.backward_launches = 0;
        out.push_back(std::move(b));
        break;
      }
      case OpKind::collective: {
        Op b = f;
        b.name += " backward";
        if (f.collective == CollectiveKind::all_gather && f.group == CommGroup::tp) b.collective = CollectiveKind::reduce_scatter;
        else if (f.collective == CollectiveKind::reduce_scatter && f.group == CommGroup::tp) b.collective = CollectiveKind::all_gather;
        else if (f.group == CommGroup::cp) b.collective = CollectiveKind::reduce_scatter;  // dK, dV flow back
        out.push_back(std::move(b));
        break;
      }
    }
  }
  for (Op& b : out) b.host_sync = false;  // the backward reuses the split sizes the forward copied
  return out;
}

}  // namespace cs
