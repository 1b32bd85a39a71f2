#include "sim/report/service_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/human_units.hpp"
#include "sim/facility/tco_report.hpp"

namespace cs {

std::optional<ServiceCost> service_cost(const RunResult& r) {
  if (!r.tco || !r.serving) return std::nullopt;
  const ServingResult& s = *r.serving;
  const double seconds = s.makespan.seconds();
  const double tokens = (s.input_tokens_per_s + s.output_tokens_per_s) * seconds;
  const double output = s.output_tokens_per_s * seconds;
  if (tokens <= 0 || output <= 0) return std::nullopt;
  ServiceCost c;
  c.window_usd = r.tco->run_cost.value();
  c.usd_per_million_tokens = c.window_usd / tokens * 1e6;
  c.usd_per_million_output_tokens = c.window_usd / output * 1e6;
  const double input = tokens - output;
  const double share = std::clamp(s.prefill_share, 0.0, 1.0);
  if (input > 0) c.usd_per_million_input_tokens_split = c.window_usd * share / input * 1e6;
  c.usd_per_million_output_tokens_split = c.window_usd * (1 - share) / output * 1e6;
  c.owned_usd_per_gpu_hour = r.tco->owned_per_gpu_hour.value();
  return c;
}

nlohmann::ordered_json service_json(const Scenario& sc, const RunResult& r) {
  using J = nlohmann::ordered_json;
  J j;
  j["format_version"] = 1;
  j["kind"] = "serving";
  j["scenario"] = sc.name;
  j["scenario_file"] = sc.file;
  j["gpus"] = r.gpus;
  j["serving"] = J::parse(serving_json(*r.serving).dump());  // the serving layer's object, key order kept
  if (const auto c = service_cost(r)) {
    j["cost"] = {{"window_usd", c->window_usd},
                 {"usd_per_million_tokens", c->usd_per_million_tokens},
                 {"usd_per_million_output_tokens", c->usd_per_million_output_tokens},
                 {"split_by_gpu_time", {{"usd_per_million_input_tokens", c->usd_per_million_input_tokens_split},
                                        {"usd_per_million_output_tokens", c->usd_per_million_output_tokens_split}}},
                 {"owned_usd_per_gpu_hour", c->owned_usd_per_gpu_hour}};
  } else {
    j["cost"] = nullptr;
  }
  j["compute_model"] = {{"profile", r.compute_provenance.profile},
                        {"source", r.compute_provenance.kind},
                        {"reference", r.compute_provenance.description}};
  j["communication_model"] = r.serving_comm;
  j["power"] = r.tco ? power_json(r.tco->power) : J(nullptr);
  j["tco"] = r.tco ? tco_json(*r.tco) : J(nullptr);
  j["warnings"] = r.warnings;
  return j;
}

std::string service_summary(const Scenario& sc, const RunResult& r) {
  const ServingResult& s = *r.serving;
  const ServingConfig& c = *sc.serving;
  std::string out;
  const auto line = [&](std::string_view label, const std::string& value) {
    out += fmt::format("  {:<30} {}\n", label, value);
  };
  const auto stats = [](const LatencyStats& l) {
    return fmt::format("p50 {} / p90 {} / p99 {}", format_duration(l.p50_s), format_duration(l.p90_s),
                       format_duration(l.p99_s));
  };
  out += fmt::format("clustersim: {}\n", sc.name);
  out += fmt::format("  {} x {} GPUs ({}), model {} ({:.1f}B parameters)\n", r.gpus, sc.profile.gpu.name,
                     sc.topology.name(), sc.model.name, sc.model.total_params() / 1e9);
  if (c.deployment.disaggregated()) {
    const Deployment p = c.deployment.pool(PoolRole::prefill), d = c.deployment.pool(PoolRole::decode);
    out += fmt::format("  deployment: disaggregated, prefill {} x TP{} and decode {} x TP{} (PP{} EP{}), weights {}, "
                       "KV cache {}; engine {}\n",
                       p.replicas, p.tp, d.replicas, d.tp, c.deployment.pp, c.deployment.ep,
                       to_string(c.deployment.weights), to_string(c.deployment.kv_cache),
                       batching_names().name(c.engine.batching));
  } else {
    out += fmt::format("  deployment: {} replicas of TP{} PP{} EP{}, weights {}, KV cache {}; engine {}\n",
                       c.deployment.replicas, c.deployment.tp, c.deployment.pp, c.deployment.ep,
                       to_string(c.deployment.weights), to_string(c.deployment.kv_cache),
                       batching_names().name(c.engine.batching));
  }
  out += fmt::format("  window: {} requests in {}\n\n", s.arrived, format_duration(s.makespan.seconds()));
  out += "Latency\n";
  line("time to first token", stats(s.ttft));
  line("time per output token", stats(s.tpot));
  line("end to end", stats(s.e2e));
  out += "\nThroughput\n";
  line("requests", fmt::format("{:.3g} /s ({} finished, {} unfinished)", s.requests_per_s, s.finished, s.unfinished));
  line("tokens", fmt::format("{} tokens/s in, {} tokens/s out", format_si(s.input_tokens_per_s, ""),
                             format_si(s.output_tokens_per_s, "")));
  line("goodput", fmt::format("{:.3g} requests/s within TTFT {} and TPOT {} ({:.1f}% of finished)", s.goodput_per_s,
                              format_duration(c.slo.ttft.seconds()), format_duration(c.slo.tpot.seconds()),
                              s.finished > 0 ? 100.0 * static_cast<double>(s.slo_met) / static_cast<double>(s.finished)
                                             : 0.0));
  out += "\nEngine\n";
  line("GPU busy", fmt::format("{:.1f}% ({:.1f}% of it in iterations with a prompt)", 100 * s.gpu_busy,
                               100 * s.prefill_share));
  line("decode batch", fmt::format("{:.1f} sequences per decoding iteration", s.mean_decode_batch));
  line("KV cache", fmt::format("{} per GPU, {} blocks per replica; occupancy mean {:.1f}%, max {:.1f}%",
                               format_bytes(s.memory.kv_cache.value()), s.memory.blocks, 100 * s.kv_occupancy_mean,
                               100 * s.kv_occupancy_max));
  line("weights per GPU", format_bytes(s.memory.weights.value()));
  if (s.disaggregated) {
    const DisaggregatedResult& dis = *s.disaggregated;
    const auto pool = [&](std::string_view label, const PoolResult& p) {
      line(label, fmt::format("{} x {} GPUs, busy {:.1f}%, KV cache {} blocks per replica, occupancy mean {:.1f}%, "
                              "max {:.1f}%, {} preemptions",
                              p.replicas, p.gpus_per_replica, 100 * p.gpu_busy, p.memory.blocks,
                              100 * p.kv_occupancy_mean, 100 * p.kv_occupancy_max, p.preemptions));
    };
    pool("prefill pool", dis.prefill);
    pool("decode pool", dis.decode);
    const KvTransferResult& kv = dis.kv_transfer;
    line("KV transfers", fmt::format("{} caches, {} in all; time p50 {} / p99 {}; wait for decode room p50 {} / p99 {}",
                                     kv.transfers, format_bytes(kv.bytes), format_duration(kv.time.p50_s),
                                     format_duration(kv.time.p99_s), format_duration(kv.wait.p50_s),
                                     format_duration(kv.wait.p99_s)));
  }
  line("preemptions", std::to_string(s.preemptions));
  line("queue", s.queue.unbounded ? s.queue.message : "bounded");
  line("compute", fmt::format("{} ({}: {})", r.compute_provenance.profile, r.compute_provenance.kind,
                              r.compute_provenance.description));
  line("communication", r.serving_comm);
  if (const auto cost = service_cost(r)) {
    out += "\nCost (owned cluster, the simulated window)\n";
    line("per million tokens", fmt::format("${:.3g} (prompt and output), ${:.3g} per million output tokens",
                                           cost->usd_per_million_tokens, cost->usd_per_million_output_tokens));
    line("priced separately", fmt::format("${:.3g} per million input tokens, ${:.3g} per million output tokens "
                                          "(the window split by prefill and decode GPU time)",
                                          cost->usd_per_million_input_tokens_split,
                                          cost->usd_per_million_output_tokens_split));
    line("owned GPU-hour", fmt::format("${:.3f}", cost->owned_usd_per_gpu_hour));
    line("capex", format_dollars(r.tco->hardware_capex.value()) + " hardware");
    line("IT power", format_watts(r.tco->power.it_average.value()) + " average");
  }
  if (!r.warnings.empty()) out += "\n";
  for (const auto& w : r.warnings) out += fmt::format("warning: {}\n", w);
  return out;
}

}  // namespace cs
