// Serving rows (../shared/validation/README.md): one prefill or decode step, or a whole static-batch generation,
// of a model on one GPU (or a TP group), predicted by the serving layer's iteration cost. The model is the row's
// shape on a preset of its family (dense: Llama 3's layout; MoE: Mixtral's); nothing is read from the notes.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "sim/collectives/network_options.hpp"
#include "sim/hardware/device_profile.hpp"
#include "sim/input/input_node.hpp"
#include "sim/schedule/colocation_model.hpp"
#include "sim/serving/iteration_cost.hpp"
#include "sim/serving/replica_comm.hpp"
#include "sim/topology/topology.hpp"
#include "sim/validation/validation.hpp"
#include "sim/workload/model_zoo.hpp"

namespace cs {
namespace {

std::optional<double> cell_number(const CsvTable& t, const CsvTable::Row& row, const char* c) {
  const std::string& s = t.cell(row, c);
  if (s.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw InputError({t.file(), row.line, 0}, c, "expected a number, got \"" + s + "\"");
}

std::string lower_text(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

/// The row's model: its family's preset with the row's layer count, widths, heads and vocabulary.
ModelSpec row_model(const CsvTable& t, const CsvTable::Row& row, std::vector<std::string>& assumptions) {
  const bool moe = cell_number(t, row, "moe_experts").value_or(0) > 1;
  std::string yaml = std::string("preset: ") + (moe ? "mixtral-8x7b" : "llama3-8b") + "\n";
  const auto put = [&](const char* key, const char* column) {
    if (const auto v = cell_number(t, row, column)) yaml += fmt::format("{}: {}\n", key, static_cast<long long>(*v));
  };
  put("layers", "num_layers");
  put("hidden", "hidden_size");
  put("heads", "num_heads");
  put("kv_heads", "num_kv_heads");
  put("ffn_hidden", "ffn_hidden_size");
  put("vocab", "vocab_size");
  if (moe) {
    put("experts", "moe_experts");
    put("top_k", "moe_topk");
    put("expert_ffn_hidden", "moe_ffn_hidden");
  }
  assumptions.push_back(std::string("layout of ") + (moe ? "Mixtral (MoE, SwiGLU experts)" : "Llama 3 (RMSNorm, SwiGLU, "
                                                                                             "GQA, RoPE, untied output)") +
                        " at the row's shape");
  return parse_model_spec(InputNode::parse(yaml, t.file() + ":" + std::to_string(row.line)));
}

BatchShape prefill(std::int64_t batch, std::int64_t prompt) {
  BatchShape b;
  for (std::int64_t i = 0; i < batch; ++i) b.prefills.push_back({prompt, 0, true});
  return b;
}

BatchShape decode(std::int64_t batch, std::int64_t context) {
  BatchShape b;
  b.decodes = batch;
  b.decode_context = batch * context;
  return b;
}

}  // namespace

bool is_serving_row(const CsvTable& t, const CsvTable::Row& row) { return t.cell(row, "row_kind").starts_with("serve_"); }

void predict_serving_row(const CsvTable& t, const CsvTable::Row& row, ValidationRow& v) {
  const std::string kind = t.cell(row, "row_kind");
  const auto need = [&](const char* c) -> std::int64_t {
    const auto x = cell_number(t, row, c);
    if (!x || *x <= 0) throw InputError({t.file(), row.line, 0}, c, "a " + kind + " row needs it");
    return static_cast<std::int64_t>(*x);
  };
  std::string profile, topology, skip;
  if (!hardware_profile(t.cell(row, "hardware"), profile, topology, skip)) {
    v.skipped = skip;
    return;
  }
  const DeviceProfile dev = find_device_profile(profile);
  const auto compute = make_cost_model(dev);
  const ModelSpec model = row_model(t, row, v.assumptions);
  v.moe = model.is_moe();
  Deployment d;
  d.tp = static_cast<int>(cell_number(t, row, "tp").value_or(1));
  d.pp = static_cast<int>(cell_number(t, row, "pp").value_or(1));
  d.ep = std::gcd(d.tp, static_cast<int>(cell_number(t, row, "ep").value_or(1)));
  const std::string precision = lower_text(t.cell(row, "precision"));
  if (precision.find("fp8") != std::string::npos) {
    d.weights = DType::fp8;
    v.fp8 = true;
    if (precision.find("kv") != std::string::npos && precision.find("bf16 kv") == std::string::npos) {
      d.kv_cache = DType::fp8;
    }
  }
  EngineConfig e;
  const std::string graphs = lower_text(t.cell(row, "cuda_graphs"));
  e.cuda_graphs = graphs == "yes" || graphs == "true" || graphs == "1";
  const Topology topo = load_topology_for_job(topology, std::max(d.gpus_per_replica(), 1));
  const TopologyComm comm(topo, d.tp, collective_calibration(NetworkOptions{}));
  const IterationCost cost(model, d, e, *compute, comm);
  v.assumptions.push_back(fmt::format("{} profile, tp {}, {} weights, {}", profile, d.tp, to_string(d.weights),
                                      e.cuda_graphs ? "decode replayed as a CUDA graph" : "kernels launched eagerly"));
  const std::int64_t batch = need("batch");
  Time predicted;
  IterationBreakdown shape;
  if (kind == "serve_prefill") {
    v.quantity = "step_time_s";
    shape = cost.breakdown(prefill(batch, need("prompt_len")));
    predicted = shape.total();
  } else if (kind == "serve_decode") {
    v.quantity = "step_time_s";
    shape = cost.breakdown(decode(batch, need("ctx_len")));
    predicted = shape.total();
  } else if (kind == "serve_generate") {
    // A static batch: one prefill, then gen_len - 1 decodes over a growing cache (the first token comes from the
    // prefill); compared on the time per output token, the time to first token stated beside it.
    const std::int64_t prompt = need("prompt_len"), gen = need("gen_len");
    const Time ttft = cost.price(prefill(batch, prompt));
    Time decodes = Time::zero();
    for (std::int64_t k = 1; k < gen; ++k) {
      shape = cost.breakdown(decode(batch, prompt + k));
      decodes += shape.total();
    }
    v.quantity = "tpot_s";
    predicted = gen > 1 ? Time::from_seconds(decodes.seconds() / static_cast<double>(gen - 1)) : ttft;
    if (const auto m = cell_number(t, row, "meas_ttft_s")) {
      v.assumptions.push_back(fmt::format("time to first token {:.2f} ms against {:.2f} ms measured ({:+.0f}%)",
                                          ttft.seconds() * 1e3, *m * 1e3, 100 * (ttft.seconds() / *m - 1)));
    }
  } else {
    v.skipped = "row_kind " + kind + " is not a serving kind this build predicts";
    return;
  }
  const char* measured_column = v.quantity == "tpot_s" ? "meas_tpot_s" : "meas_step_time_s";
  const auto measured = cell_number(t, row, measured_column);
  if (!measured || *measured <= 0) {
    v.skipped = std::string("measures nothing to compare (no ") + measured_column + ")";
    return;
  }
  v.measured = *measured;
  // Shared GPUs: the co-location model, against the job the row names.
  const std::string partner = t.cell(row, "colocated_with");
  if (!partner.empty()) {
    const std::string iso = lower_text(t.cell(row, "isolation"));
    const std::optional<Isolation> isolation = iso.empty() || iso == "none" || iso == "time-slicing"
                                                   ? std::optional(Isolation::time_slicing)
                                               : iso == "mps" ? std::optional(Isolation::mps)
                                               : iso == "mig" ? std::optional(Isolation::mig)
                                                              : std::nullopt;
    if (!isolation) throw InputError({t.file(), row.line, 0}, "isolation", "expected none, mps or mig, got \"" + iso + "\"");
    std::string partner_kind;
    for (const auto& r : t.rows()) {
      if (t.cell(r, "row_id") == partner) partner_kind = t.cell(r, "row_kind");
    }
    const IterationShape it{predicted, shape.kernels, e.cuda_graphs || kind == "serve_prefill"};
    double slowdown = 1;
    if (partner_kind.starts_with("serve_") && *isolation == Isolation::time_slicing) {
      slowdown = time_sliced_replicas_slowdown(predicted, predicted, ColocationParams::shipped());
      v.assumptions.push_back("time-sliced with another serving job (" + partner + "), taken to be as busy");
    } else {
      const CoLocation c = colocate(*isolation, it, ColocationParams::shipped());
      slowdown = c.replica_slowdown;
      v.assumptions.push_back("beside " + (partner_kind.empty() ? std::string("a job") : partner_kind + " row") + " " +
                              partner + " (always busy): " + c.mechanism);
    }
    predicted = Time::from_seconds(predicted.seconds() * slowdown);
  }
  v.predicted = predicted.seconds();
  v.step.step_time = predicted;
}

}  // namespace cs
