#include "sim/scenario/validation.hpp"

#include <charconv>
#include <cmath>

#include "sim/scenario/runner.hpp"

namespace cs {
namespace {

std::optional<double> number(const std::string& s) {
  // Leading number of the cell ("3 (Calculon encoding)" -> 3); empty or non-numeric -> nullopt.
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end == s.data()) return std::nullopt;
  return v;
}

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

/// GPUs per node of every system a row maps to (DGX A100, DGX H100, DGX H200).
constexpr int kNodeGpus = 8;

}  // namespace

const std::vector<std::string>& validation_columns() {
  static const std::vector<std::string> cols{
      "row_id", "source", "hardware", "gpu_count", "gpus_per_node", "model", "num_layers", "hidden_size",
      "num_heads", "num_kv_heads", "ffn_hidden_size", "vocab_size", "seq_len", "moe_experts", "moe_topk",
      "moe_ffn_hidden", "tp", "pp", "dp", "cp", "ep", "vpp_interleave", "zero_fsdp", "sequence_parallel",
      "act_recompute", "global_batch_seqs", "micro_batch", "precision", "framework", "meas_step_time_s",
      "meas_tflops_per_gpu", "meas_tokens_per_s_per_gpu", "meas_other", "notes"};
  return cols;
}

std::optional<Scenario> scenario_from_row(const CsvTable& t, const CsvTable::Row& row, std::string& skip,
                                          std::vector<std::string>& assumptions) {
  auto cell = [&](const char* c) -> const std::string& { return t.cell(row, c); };
  auto num = [&](const char* c) { return number(cell(c)); };
  const SourceLocation where{t.file(), row.line, 0};
  Scenario sc;
  sc.file = t.file() + ":" + std::to_string(row.line);
  sc.name = "row " + cell("row_id") + ": " + cell("model");

  const std::string hw = cell("hardware");
  std::string profile, topology;
  if (contains(hw, "A100")) { profile = "a100-sxm"; topology = "dgx-a100"; }
  else if (contains(hw, "H200")) { profile = "h200"; topology = "dgx-h200"; }
  else if (contains(hw, "H100")) { profile = "h100-sxm"; topology = "dgx-h100"; }
  else { skip = "hardware \"" + hw + "\" has no device profile"; return std::nullopt; }

  const auto gpus = num("gpu_count");
  if (!gpus || *gpus <= 0) { skip = "gpu_count missing"; return std::nullopt; }
  sc.gpus = static_cast<int>(*gpus);

  ModelSpec& m = sc.model;
  m.name = cell("model");
  const auto layers = num("num_layers"), hidden = num("hidden_size");
  if (!layers || !hidden) { skip = "architecture (layers, hidden size) not given"; return std::nullopt; }
  m.layers = static_cast<int>(*layers);
  m.hidden = static_cast<std::int64_t>(*hidden);
  if (auto a = num("num_heads")) m.heads = static_cast<int>(*a);
  else {
    m.heads = static_cast<int>(m.hidden / 128);
    assumptions.push_back("heads = hidden/128");
  }
  m.kv_heads = num("num_kv_heads") ? static_cast<int>(*num("num_kv_heads")) : m.heads;
  const bool llama_like = contains(cell("model"), "LLAMA") || contains(cell("model"), "Llama");
  m.gated_ffn = llama_like;
  if (auto f = num("ffn_hidden_size")) m.ffn_hidden = static_cast<std::int64_t>(*f);
  else {
    m.ffn_hidden = 4 * m.hidden;
    assumptions.push_back("ffn = 4h");
  }
  if (auto v = num("vocab_size")) m.vocab = static_cast<std::int64_t>(*v);
  else if (contains(cell("model"), "Nemotron")) {
    m.vocab = 256000;  // the Nemotron family's SentencePiece tokenizer (Nemotron-3 and -4 model cards)
    assumptions.push_back("vocab = 256000 (Nemotron tokenizer)");
  } else {
    m.vocab = 51200;  // GPT-2 BPE padded to a multiple of 1024, Megatron-LM's default
    assumptions.push_back("vocab = 51200");
  }
  const auto seq = num("seq_len");
  if (!seq) { skip = "sequence length not given"; return std::nullopt; }
  m.seq_len = static_cast<int>(*seq);
  if (auto e = num("moe_experts"); e && *e > 0) {
    m.experts = static_cast<int>(*e);
    m.top_k = static_cast<int>(num("moe_topk").value_or(2));
    m.expert_ffn_hidden = static_cast<std::int64_t>(num("moe_ffn_hidden").value_or(static_cast<double>(m.ffn_hidden)));
  }

  ParallelPlan& p = sc.plan;
  const auto tp = num("tp"), pp = num("pp");
  p.cp = static_cast<int>(num("cp").value_or(1));
  p.ep = static_cast<int>(num("ep").value_or(1));
  if (tp && pp) {
    p.tp = static_cast<int>(*tp);
    p.pp = static_cast<int>(*pp);
  } else if (const std::string other = cell("meas_other"); contains(other, "(TP*PP)=")) {
    // Only the model-parallel size is published: TP fills a node first (TP <= 8), PP takes the rest.
    const int mp = static_cast<int>(number(other.substr(other.find("(TP*PP)=") + 8)).value_or(1));
    p.tp = std::min(mp, 8);
    p.pp = mp / p.tp;
    assumptions.push_back("TP = min(MP, 8), PP = MP/TP");
  } else if (tp && contains(cell("zero_fsdp"), "FSDP")) {
    p.tp = static_cast<int>(*tp);
    p.pp = 1;
  } else {
    skip = "parallel layout (TP, PP) not given";
    return std::nullopt;
  }
  p.dp = sc.gpus / (p.tp * p.pp * p.cp);
  if (auto v = num("vpp_interleave"); v && *v > 1) {
    p.virtual_stages = static_cast<int>(*v);
    p.schedule = PipelineSchedule::interleaved;
  }
  const std::string sp = cell("sequence_parallel");
  p.sequence_parallel = sp.empty() ? p.tp > 1 : sp == "yes";
  const std::string zero = cell("zero_fsdp");
  p.zero_stage = contains(zero, "FSDP") ? 3 : contains(zero, "ZeRO-1") ? 1 : 0;
  if (zero.empty() && (contains(cell("framework"), "Megatron-Core") || contains(cell("framework"), "NeMo"))) {
    p.zero_stage = 1;  // both default to the distributed optimizer (Megatron-Core --use-distributed-optimizer)
    assumptions.push_back("distributed optimizer");
  }

  TrainingConfig& tr = sc.training;
  const auto gb = num("global_batch_seqs");
  if (!gb) { skip = "global batch not given"; return std::nullopt; }
  tr.global_batch = static_cast<std::int64_t>(*gb);
  if (auto mb = num("micro_batch")) tr.micro_batch = static_cast<int>(*mb);
  else {
    tr.micro_batch = 1;
    assumptions.push_back("micro-batch 1");
  }
  tr.seq_len = m.seq_len;
  const std::string prec = cell("precision");
  tr.precision = contains(prec, "fp8") ? DType::fp8 : contains(prec, "fp16") ? DType::fp16 : DType::bf16;
  const std::string rc = cell("act_recompute");
  tr.recompute = contains(rc, "full") ? Recompute::full : contains(rc, "selective") ? Recompute::selective : Recompute::none;
  if (rc.empty()) assumptions.push_back("no recompute");
  if (contains(cell("notes"), "--tp-comm-overlap")) tr.overlap.tp_comm = true;  // as the row states
  // Megatron-LM and Megatron-DeepSpeed of 2021-2022 (before FlashAttention was integrated) ran attention unfused.
  const std::string fw = cell("framework");
  if (contains(fw, "2021") || contains(fw, "2022") || contains(cell("source"), "BLOOM")) {
    tr.attention = AttentionKernel::unfused;
    assumptions.push_back("unfused attention (framework of 2021-22)");
  }

  if (p.dp <= 0 || p.tp * p.pp * p.cp * p.dp != sc.gpus) {
    skip = "GPU count is not TP*PP*CP*DP";
    return std::nullopt;
  }
  if (tr.global_batch % (static_cast<std::int64_t>(tr.micro_batch) * p.dp) != 0) {
    skip = "global batch " + std::to_string(tr.global_batch) + " is not a multiple of micro-batch x DP (" +
           std::to_string(tr.micro_batch * p.dp) + ")";
    return std::nullopt;
  }
  if (p.schedule == PipelineSchedule::interleaved && tr.micro_batches(p) % p.pp != 0) {
    p.virtual_stages = 1;
    p.schedule = PipelineSchedule::one_f_one_b;
    assumptions.push_back("not interleaved (micro-batches not divisible by PP)");
  }
  try {
    // A job smaller than one node runs on part of a single node of the simulated system, down to one GPU
    // (a row's own gpus_per_node may be smaller than the DGX node it is simulated on: a 1-GPU workstation).
    if (sc.gpus < kNodeGpus && kNodeGpus % sc.gpus == 0) {
      sc.gpus = kNodeGpus;
      assumptions.push_back("part of one " + std::to_string(kNodeGpus) + "-GPU node");
    }
    sc.topology = load_topology(topology, sc.gpus);
    sc.profile = find_device_profile(profile);
  } catch (const InputError& e) {
    skip = e.what();
    return std::nullopt;
  }
  check_plan(where, m, p, tr, sc.gpus, sc.topology.node().gpus);
  return sc;
}

namespace {

/// Fills `v` with the prediction of `row`; throws whatever planning or simulating the row throws.
void predict_into(const CsvTable& t, const CsvTable::Row& row, ValidationRow& v) {
  std::string skip;
  const auto sc = scenario_from_row(t, row, skip, v.assumptions);
  if (!sc) {
    v.skipped = skip;
    return;
  }
  const RunResult r = run_scenario(*sc);
  if (v.quantity == "step_time_s") v.predicted = r.step.step_time.seconds();
  else if (v.quantity == "tokens_per_s_per_gpu") v.predicted = r.tokens_per_s / r.gpus;
  else {
    // Sources that count recompute FLOPs (Narayanan et al. SC'21, BLOOM) are compared on hardware FLOPs.
    const std::string notes = t.cell(row, "notes") + " " + t.cell(row, "act_recompute") + " " + v.source;
    const bool hardware = contains(notes, "counts it") || contains(notes, "includes recompute") || contains(notes, "BLOOM") ||
                          contains(notes, "HFU-like");
    const Flops f = hardware ? r.step.hardware_flops : r.step.model_flops;
    v.predicted = f.value() / r.step.step_time.seconds() / r.gpus / 1e12;
    if (hardware) v.assumptions.push_back("hardware FLOPs (source counts recompute)");
  }
  if (!r.fits_in_memory) v.assumptions.push_back("predicted OUT OF MEMORY");
}

}  // namespace

ValidationRow predict_row(const CsvTable& t, const CsvTable::Row& row) {
  ValidationRow v;
  v.id = t.cell(row, "row_id");
  v.line = row.line;
  v.source = t.cell(row, "source");
  v.model = t.cell(row, "model");
  v.gpus = static_cast<int>(number(t.cell(row, "gpu_count")).value_or(0));
  if (auto s = number(t.cell(row, "meas_step_time_s"))) { v.quantity = "step_time_s"; v.measured = *s; }
  else if (auto k = number(t.cell(row, "meas_tokens_per_s_per_gpu"))) { v.quantity = "tokens_per_s_per_gpu"; v.measured = *k; }
  else if (auto f = number(t.cell(row, "meas_tflops_per_gpu"))) { v.quantity = "tflops_per_gpu"; v.measured = *f; }
  else {
    v.skipped = "measures only MFU (no step time, tokens/s or TFLOP/s to compare)";
    return v;
  }
  try {
    predict_into(t, row, v);
  } catch (const InputError& e) {
    v.skipped = e.message();  // a layout the planner rejects: the key and what is wrong, without the file prefix
    if (!e.key_path().empty()) v.skipped = e.key_path() + ": " + *v.skipped;
  } catch (const std::exception& e) {
    v.skipped = std::string("could not be simulated: ") + e.what();
  }
  if (v.skipped) v.predicted = 0;
  return v;
}

std::vector<ValidationRow> validate(const CsvTable& t) {
  t.require_columns(validation_columns());
  std::vector<ValidationRow> out;
  out.reserve(t.rows().size());
  for (const auto& row : t.rows()) out.push_back(predict_row(t, row));
  return out;
}

}  // namespace cs
