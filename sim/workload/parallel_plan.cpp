#include "sim/workload/parallel_plan.hpp"

#include <algorithm>

namespace cs {

std::string to_string(PipelineSchedule s) {
  switch (s) {
    case PipelineSchedule::gpipe: return "gpipe";
    case PipelineSchedule::one_f_one_b: return "1f1b";
    case PipelineSchedule::interleaved: return "interleaved-1f1b";
    case PipelineSchedule::dualpipe: return "dualpipe";
    case PipelineSchedule::zb_h1: return "zb-h1";
    case PipelineSchedule::zb_h2: return "zb-h2";
    case PipelineSchedule::zb_v: return "zb-v";
    case PipelineSchedule::dualpipe_v: return "dualpipe-v";
    case PipelineSchedule::pipedream_2bw: return "pipedream-2bw";
    case PipelineSchedule::pipedream_async: return "pipedream-async";
  }
  return "?";
}

std::string to_string(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "?";
}

double reduced_gradient_bytes(const TrainingConfig& t) noexcept {
  const bool fp32 = t.precision == DType::fp32 || t.precision == DType::tf32;
  return fp32 || t.grad_reduce_in_fp32 ? 4.0 : 2.0;
}

double optimizer_state_bytes(const TrainingConfig& t) noexcept {
  if (t.precision == DType::fp32 || t.precision == DType::tf32) return 8.0;
  const double moment = t.optimizer_moments == DType::bf16 ? 2.0 : 4.0;
  const double master = t.master_weights == DType::bf16 ? 2.0 : 4.0;
  return 2.0 * moment + master;
}

double gathered_param_bytes(const TrainingConfig& t) noexcept {
  if (t.precision == DType::fp32 || t.precision == DType::tf32) return 4.0;
  return is_quantized(t.precision) && t.fp8_params ? bytes_per_element(t.precision) : 2.0;
}

double cached_weight_copy_bytes(const TrainingConfig& t) noexcept {
  return is_quantized(t.precision) && !t.fp8_params ? 2.0 * bytes_per_element(t.precision) : 0.0;
}

std::vector<int> virtual_stage_layer_counts(const ModelSpec& m, const ParallelPlan& p) {
  const int n = p.pieces();
  const int v = n / p.pp;  // pieces per rank (interleaved: virtual stages; a V: two)
  std::vector<int> counts(static_cast<std::size_t>(n), 0);
  auto spread = [](int total, int parts, int k) { return (k + 1) * total / parts - k * total / parts; };
  if (p.first_stage_layers >= 0 || p.last_stage_layers >= 0) {
    // Per pipeline rank first, then over that rank's chunks.
    const int ends = (p.first_stage_layers >= 0 ? 1 : 0) + (p.last_stage_layers >= 0 ? 1 : 0);
    const int fixed = std::max(0, p.first_stage_layers) + std::max(0, p.last_stage_layers);
    const int middle_ranks = p.pp - ends;
    const int rest = m.layers - fixed;
    if (p.pp < ends || rest < 0 || (middle_ranks == 0 && rest != 0)) return {};
    std::vector<int> per_rank(static_cast<std::size_t>(p.pp));
    int k = 0;
    for (int s = 0; s < p.pp; ++s) {
      if (s == 0 && p.first_stage_layers >= 0) per_rank[0] = p.first_stage_layers;
      else if (s == p.pp - 1 && p.last_stage_layers >= 0) per_rank[static_cast<std::size_t>(s)] = p.last_stage_layers;
      else per_rank[static_cast<std::size_t>(s)] = spread(rest, middle_ranks, k++);
    }
    for (int s = 0; s < p.pp; ++s) {
      for (int c = 0; c < v; ++c) counts[static_cast<std::size_t>(p.piece(s, c))] = spread(per_rank[static_cast<std::size_t>(s)], v, c);
    }
    return counts;
  }
  // The loss counts as one layer, and each multi-token prediction module (which runs on the last stage) as
  // one more: NeMo's DeepSeek-V3 recipe splits 61 layers + embedding + loss + MTP = 64 units over PP 16.
  const int loss_units = p.loss_in_split ? 1 + m.mtp_layers : 0;
  const int extra = (p.embedding_in_split ? 1 : 0) + loss_units;
  const int units = m.layers + extra;
  if (units < n) return {};
  for (int vs = 0; vs < n; ++vs) counts[static_cast<std::size_t>(vs)] = spread(units, n, vs);
  if (p.embedding_in_split) --counts.front();
  counts.back() -= loss_units;
  for (const int c : counts) {
    if (c < 0) return {};
  }
  return counts;
}

std::pair<int, int> virtual_stage_layers(const ModelSpec& m, const ParallelPlan& p, int vs) {
  const std::vector<int> counts = virtual_stage_layer_counts(m, p);
  int first = 0;
  for (int i = 0; i < vs && i < static_cast<int>(counts.size()); ++i) first += counts[static_cast<std::size_t>(i)];
  const int here = vs < static_cast<int>(counts.size()) ? counts[static_cast<std::size_t>(vs)] : 0;
  return {first, first + here};
}

void check_plan(const SourceLocation& where, const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t, int gpus,
                int gpus_per_node) {
  auto fail = [&](const std::string& key, const std::string& msg) {
    throw InputError(where, key, msg);
  };
  // A job may use part of a single node (one GPU of a DGX, say); beyond one node it must use every GPU.
  const bool part_of_one_node = gpus == gpus_per_node && p.gpus() < gpus && gpus % p.gpus() == 0;
  if (p.gpus() != gpus && !part_of_one_node) {
    fail("parallelism", "tp*pp*dp*cp = " + std::to_string(p.tp) + "*" + std::to_string(p.pp) + "*" +
                            std::to_string(p.dp) + "*" + std::to_string(p.cp) + " = " + std::to_string(p.gpus()) +
                            " but the cluster has " + std::to_string(gpus) + " GPUs (only a single node may be used in part)");
  }
  if (p.tp > gpus_per_node) fail("parallelism.tp", "tensor parallelism beyond one node (" + std::to_string(gpus_per_node) + " GPUs) is not supported");
  if (m.heads % p.tp != 0) fail("parallelism.tp", "heads (" + std::to_string(m.heads) + ") must be divisible by tp");
  if (m.kv_heads % p.tp != 0 && p.tp % m.kv_heads != 0) fail("parallelism.tp", "kv_heads must divide or be divisible by tp");
  if (m.ffn_hidden % p.tp != 0) fail("parallelism.tp", "ffn_hidden must be divisible by tp");
  // Megatron-Core's MambaMixer splits its SSM heads and B/C groups over TP, and under CP trades the sequence
  // split for a further split of both (MambaContextParallel).
  if (!m.splits_mamba_over(p.tp)) {
    fail("parallelism.tp", "mamba_heads (" + std::to_string(m.mamba_heads) + ") and mamba_groups (" + std::to_string(m.mamba_groups) + ") must be divisible by tp");
  }
  if (!m.splits_mamba_over(p.tp, p.cp)) {
    fail("parallelism.cp", "a TP rank's Mamba heads (" + std::to_string(m.mamba_heads / p.tp) + ") and groups (" + std::to_string(m.mamba_groups / p.tp) + ") must be divisible by cp");
  }
  if (virtual_stage_layer_counts(m, p).empty()) {
    const int extra = (p.embedding_in_split ? 1 : 0) + (p.loss_in_split ? 1 : 0);
    fail("parallelism.pp", "layers (" + std::to_string(m.layers) + (extra ? " plus " + std::to_string(extra) + " counted for embedding/loss" : "") +
                               ") cannot be split over " +
                               (v_shaped(p.schedule) ? "the V's 2*pp (" + std::to_string(p.pieces()) + ") pieces"
                                                     : "pp*virtual_stages (" + std::to_string(p.pieces()) + ") virtual stages") + (p.first_stage_layers >= 0 || p.last_stage_layers >= 0 ? " with the given first/last-stage layers" : ""));
  }
  if (t.overlap.ep_comm) {
    // Megatron-Core's own conditions for overlap_moe_expert_parallel_comm (TransformerConfig checks).
    if (!m.is_moe() || p.ep < 2) fail("training.overlap.ep_comm", "needs an MoE model with expert parallelism (ep > 1)");
    if (p.pp > 1 && p.schedule != PipelineSchedule::interleaved && p.schedule != PipelineSchedule::dualpipe &&
        p.schedule != PipelineSchedule::dualpipe_v) {
      fail("training.overlap.ep_comm", "with pp > 1 needs schedule interleaved-1f1b (virtual stages, as Megatron-Core requires), dualpipe or dualpipe-v");
    }
    if (t.recompute == Recompute::full) fail("training.overlap.ep_comm", "cannot be combined with full recompute (Megatron-Core)");
  }
  if (p.virtual_stages > 1 && p.schedule != PipelineSchedule::interleaved) {
    fail("parallelism.schedule", "virtual_stages > 1 needs schedule interleaved-1f1b (dualpipe, zb-v and dualpipe-v hold two pieces per rank by themselves)");
  }
  if (p.pp < 2 && p.schedule != PipelineSchedule::one_f_one_b && p.schedule != PipelineSchedule::gpipe &&
      p.schedule != PipelineSchedule::interleaved && p.schedule != PipelineSchedule::dualpipe) {
    fail("parallelism.schedule", to_string(p.schedule) + " needs a pipeline (pp >= 2)");
  }
  if (t.seq_len % p.cp != 0 || (p.cp > 1 && (t.seq_len / p.cp) % 2 != 0)) fail("training.seq_len", "must split evenly (in halves) over cp ranks");
  if (p.ep > 1 && !m.is_moe()) fail("parallelism.ep", "expert parallelism needs an MoE model");
  if (m.is_moe() && m.experts % p.ep != 0) fail("parallelism.ep", "experts must be divisible by ep");
  // Megatron-Core's constraint with MoE parallel folding: the expert groups (expert_tp x ep ranks) tile the
  // tp*cp*dp ranks of a pipeline stage; the expert FFN splits over expert_tp.
  const int stage_ranks = p.tp * p.cp * p.dp;
  if (p.expert_tp < 0 || stage_ranks % (p.etp() * p.ep) != 0) {
    fail("parallelism.ep", "expert_tp*ep = " + std::to_string(p.etp()) + "*" + std::to_string(p.ep) +
                               " must divide the tp*cp*dp = " + std::to_string(stage_ranks) + " ranks of a pipeline stage");
  }
  if (m.is_moe() && m.expert_ffn_hidden % p.etp() != 0) fail("parallelism.expert_tp", "expert_ffn_hidden must be divisible by expert_tp");
  if (p.single_process_dp && (p.tp * p.pp * p.cp != 1 || p.dp > gpus_per_node || p.zero_stage != 0)) {
    fail("parallelism.dp_mode", "single-process DataParallel drives the GPUs of one node only, without TP, PP, CP or ZeRO");
  }
  if (t.compression != GradCompression::none && (p.zero_stage != 0 || p.single_process_dp)) {
    fail("training.grad_compression", "gradient compression needs plain DDP (zero: 0, dp_mode: ddp)");
  }
  const std::int64_t per_step = static_cast<std::int64_t>(t.micro_batch) * p.dp;
  if (t.global_batch % per_step != 0) {
    fail("training.global_batch", std::to_string(t.global_batch) + " is not a multiple of micro_batch*dp = " + std::to_string(per_step));
  }
  const std::int64_t mb = t.micro_batches(p);
  if (p.schedule == PipelineSchedule::interleaved && mb % p.pp != 0) {
    fail("training.global_batch", "interleaved 1F1B needs micro-batches per step (" + std::to_string(mb) + ") divisible by pp");
  }
  if (p.schedule == PipelineSchedule::dualpipe_v && mb < 2 * p.pp) {
    // DualPipeV's own condition (deepseek-ai/DualPipe, dualpipev.py: num_chunks >= num_ranks * 2).
    fail("training.global_batch", "dualpipe-v needs at least 2 * pp (" + std::to_string(2 * p.pp) +
                                      ") micro-batches per step; got " + std::to_string(mb));
  }
  if (p.schedule == PipelineSchedule::dualpipe) {
    // DualPipe's own conditions (deepseek-ai/DualPipe: num_ranks even, num_chunks even and >= 2 * num_ranks).
    if (p.pp < 2 || p.pp % 2 != 0) fail("parallelism.pp", "dualpipe needs an even pp of at least 2");
    if (mb % 2 != 0 || mb < 2 * p.pp) {
      fail("training.global_batch", "dualpipe needs an even number of micro-batches per step, at least 2 * pp (" +
                                        std::to_string(2 * p.pp) + "); got " + std::to_string(mb));
    }
  }
}

}  // namespace cs
