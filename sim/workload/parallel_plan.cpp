#include "sim/workload/parallel_plan.hpp"


namespace cs {

std::string to_string(PipelineSchedule s) {
  switch (s) {
    case PipelineSchedule::gpipe: return "gpipe";
    case PipelineSchedule::one_f_one_b: return "1f1b";
    case PipelineSchedule::interleaved: return "interleaved-1f1b";
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

std::pair<int, int> virtual_stage_layers(const ModelSpec& m, const ParallelPlan& p, int vs) {
  const int n = p.pp * (p.schedule == PipelineSchedule::interleaved ? p.virtual_stages : 1);
  return {vs * m.layers / n, (vs + 1) * m.layers / n};
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
  if (m.layers < p.pp * p.virtual_stages) {
    fail("parallelism.pp", "layers (" + std::to_string(m.layers) + ") must be at least pp*virtual_stages (" +
                               std::to_string(p.pp * p.virtual_stages) + ")");
  }
  if (p.virtual_stages > 1 && p.schedule != PipelineSchedule::interleaved) {
    fail("parallelism.schedule", "virtual_stages > 1 needs schedule interleaved-1f1b");
  }
  if (t.seq_len % p.cp != 0 || (p.cp > 1 && (t.seq_len / p.cp) % 2 != 0)) fail("training.seq_len", "must split evenly (in halves) over cp ranks");
  if (p.ep > 1 && !m.is_moe()) fail("parallelism.ep", "expert parallelism needs an MoE model");
  if (m.is_moe() && m.experts % p.ep != 0) fail("parallelism.ep", "experts must be divisible by ep");
  if (p.ep > p.dp * p.cp) fail("parallelism.ep", "ep must not exceed dp*cp (experts are sharded over data-parallel ranks)");
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
}

}  // namespace cs
