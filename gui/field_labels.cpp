#include "gui/field_labels.hpp"

#include <QLocale>

#include <array>
#include <cmath>

#include "gui/human_units.hpp"

namespace cs::gui {
namespace {

struct KnownField {
  const char* key;
  const char* words;
  Quantity quantity;
  const char* noun;
};

// Result fields as `clustersim results` names them (the JSON of `clustersim run --json`, flattened) and the sweep
// keys the shipped sweeps use. Words as the planner's summary says them.
constexpr std::array kKnownFields{
    KnownField{"cluster.gpus", "GPUs", Quantity::count, ""},
    KnownField{"gpus", "GPUs", Quantity::count, ""},
    KnownField{"tco.gpus", "GPUs", Quantity::count, ""},
    KnownField{"cluster.profile", "GPU type", Quantity::text, ""},
    KnownField{"cluster.topology", "topology", Quantity::text, ""},
    KnownField{"model.preset", "model", Quantity::text, ""},
    KnownField{"parallelism", "parallelism", Quantity::text, ""},
    KnownField{"parallelism.tp", "tensor-parallel size", Quantity::count, ""},
    KnownField{"parallelism.pp", "pipeline stages", Quantity::count, ""},
    KnownField{"parallelism.dp", "data-parallel size", Quantity::count, ""},
    KnownField{"parallelism.cp", "context-parallel size", Quantity::count, ""},
    KnownField{"parallelism.ep", "expert-parallel size", Quantity::count, ""},
    KnownField{"parallelism.schedule", "pipeline schedule", Quantity::text, ""},
    KnownField{"facility.cooling.type", "cooling", Quantity::text, ""},
    KnownField{"training.global_batch", "global batch", Quantity::count, "sequences"},
    KnownField{"training.micro_batch", "micro-batch", Quantity::count, "sequences"},
    KnownField{"training.token_budget", "token budget", Quantity::count, "tokens"},
    KnownField{"training.precision", "precision", Quantity::text, ""},
    KnownField{"training.recompute", "recomputation", Quantity::text, ""},
    KnownField{"training.moe_dispatcher", "MoE dispatcher", Quantity::text, ""},
    KnownField{"step_time_s", "step time", Quantity::duration, ""},
    KnownField{"step_time_band_s.lo", "step time, band low", Quantity::duration, ""},
    KnownField{"step_time_band_s.hi", "step time, band high", Quantity::duration, ""},
    KnownField{"time_to_train_s", "time to train", Quantity::duration, ""},
    KnownField{"reliability.ideal_train_time_s", "time to train without failures", Quantity::duration, ""},
    KnownField{"reliability.effective_train_time_s", "time to train with failures", Quantity::duration, ""},
    KnownField{"reliability.mtbf_s", "mean time between failures", Quantity::duration, ""},
    KnownField{"reliability.goodput", "goodput", Quantity::fraction, ""},
    KnownField{"tokens_per_s", "throughput", Quantity::rate, "tokens"},
    KnownField{"tokens_per_s_per_gpu", "throughput per GPU", Quantity::rate, "tokens"},
    KnownField{"tokens_per_step", "tokens per step", Quantity::count, "tokens"},
    KnownField{"mfu", "MFU", Quantity::fraction, ""},
    KnownField{"hfu", "HFU", Quantity::fraction, ""},
    KnownField{"model_tflops_per_gpu", "model FLOP rate per GPU", Quantity::plain, "TFLOP/s"},
    KnownField{"peak_tflops_per_gpu", "peak FLOP rate per GPU", Quantity::plain, "TFLOP/s"},
    KnownField{"peak_memory_bytes", "memory per GPU", Quantity::bytes, ""},
    KnownField{"memory_capacity_bytes", "memory capacity per GPU", Quantity::bytes, ""},
    KnownField{"breakdown.sm_clock_mhz", "SM clock", Quantity::plain, "MHz"},
    KnownField{"power.gpu_average_w", "average power per GPU", Quantity::power, ""},
    KnownField{"power.it_average_w", "average IT power", Quantity::power, ""},
    KnownField{"power.it_peak_w", "peak IT power", Quantity::power, ""},
    KnownField{"power.facility_average_w", "average power at the meter", Quantity::power, ""},
    KnownField{"power.facility_peak_w", "peak power at the meter", Quantity::power, ""},
    KnownField{"power.pue", "PUE", Quantity::plain, ""},
    KnownField{"power.racks.total_racks", "racks", Quantity::count, ""},
    KnownField{"power.racks.compute_racks", "compute racks", Quantity::count, ""},
    KnownField{"power.step_energy_facility_j", "energy per step at the meter", Quantity::energy, ""},
    KnownField{"tco.hardware_capex_usd", "hardware capex", Quantity::money, ""},
    KnownField{"tco.facility_capex_usd", "facility capex", Quantity::money, ""},
    KnownField{"tco.tco_usd_per_year", "TCO per year", Quantity::money_per_year, ""},
    KnownField{"tco.tco_lifetime_usd", "TCO over the depreciation period", Quantity::money, ""},
    KnownField{"tco.run_cost_usd", "cost of the training run", Quantity::money, ""},
    KnownField{"tco.run_usd_per_million_tokens", "cost per million tokens", Quantity::money, ""},
    KnownField{"tco.owned_usd_per_gpu_hour", "owned cost per GPU-hour", Quantity::money, ""},
    KnownField{"tco.run_energy_facility_j", "energy of the run at the meter", Quantity::energy, ""},
    KnownField{"tco.utilisation", "utilisation", Quantity::fraction, ""},
    // An inference service's (a scenario with serving:): sweep keys and results.
    KnownField{"serving.load.rate", "request rate", Quantity::rate, "requests"},
    KnownField{"serving.engine.max_seqs", "most sequences per batch", Quantity::count, ""},
    KnownField{"serving.engine.max_batched_tokens", "most tokens per iteration", Quantity::count, "tokens"},
    KnownField{"serving.engine.token_budget", "token budget per iteration", Quantity::count, "tokens"},
    KnownField{"serving.engine.batching", "batching", Quantity::text, ""},
    KnownField{"serving.deployment.tp", "tensor-parallel size", Quantity::count, ""},
    KnownField{"serving.deployment.replicas", "replicas", Quantity::count, ""},
    KnownField{"serving.deployment.weights", "weights", Quantity::text, ""},
    KnownField{"serving.requests_per_s", "requests served", Quantity::rate, "requests"},
    KnownField{"serving.input_tokens_per_s", "input tokens", Quantity::rate, "tokens"},
    KnownField{"serving.output_tokens_per_s", "output tokens", Quantity::rate, "tokens"},
    KnownField{"serving.goodput_requests_per_s", "goodput (within the SLO)", Quantity::rate, "requests"},
    KnownField{"serving.slo_attainment", "requests within the SLO", Quantity::fraction, ""},
    KnownField{"serving.kv_cache.occupancy_max", "KV cache occupancy, max", Quantity::fraction, ""},
    KnownField{"serving.kv_cache.occupancy_mean", "KV cache occupancy, mean", Quantity::fraction, ""},
    KnownField{"serving.gpu_busy_fraction", "GPU busy", Quantity::fraction, ""},
    KnownField{"cost.usd_per_million_tokens", "cost per million tokens served", Quantity::money, ""},
    KnownField{"cost.usd_per_million_output_tokens", "cost per million output tokens", Quantity::money, ""},
};

/// The latency statistics of a service's result (`serving.ttft_s.p99`): the words of the latency.
constexpr std::array<std::pair<const char*, const char*>, 3> kLatencies{{{"serving.ttft_s", "time to first token"},
                                                                         {"serving.tpot_s", "time per output token"},
                                                                         {"serving.e2e_s", "end-to-end latency"}}};
constexpr std::array<std::pair<const char*, const char*>, 5> kLatencyStats{
    {{"mean", "mean"}, {"p50", "p50"}, {"p90", "p90"}, {"p99", "p99"}, {"max", "max"}}};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Three significant digits without exponent notation: 0.0123, 4.56, 78.9, 1234.
QString plain_digits(double v) {
  const double a = std::fabs(v);
  if (a >= 1000) return QLocale(QLocale::English).toString(v, 'f', 0);
  return QString::number(v, 'f', a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.01 ? 3 : 6);
}

}  // namespace

FieldLabel field_label(const std::string& field) {
  for (const KnownField& k : kKnownFields) {
    if (field == k.key) return {k.words, k.quantity, k.noun};
  }
  for (const auto& [prefix, words] : kLatencies) {
    for (const auto& [stat, stat_words] : kLatencyStats) {
      if (field == std::string(prefix) + "." + stat) {
        return {QString(words) + ", " + stat_words, Quantity::duration, {}};
      }
    }
  }
  // A rate (`requests_per_s`) is not a duration.
  if (ends_with(field, "_per_s")) {
    return {QString::fromStdString(field.substr(0, field.size() - 6)), Quantity::rate, {}};
  }
  // Longest suffix first: `_usd_per_year` before `_usd`.
  static const std::array<std::pair<const char*, Quantity>, 6> suffixes{{{"_usd_per_year", Quantity::money_per_year},
                                                                          {"_usd", Quantity::money},
                                                                          {"_bytes", Quantity::bytes},
                                                                          {"_s", Quantity::duration},
                                                                          {"_w", Quantity::power},
                                                                          {"_j", Quantity::energy}}};
  for (const auto& [suffix, quantity] : suffixes) {
    const std::string s(suffix);
    if (ends_with(field, s)) return {QString::fromStdString(field.substr(0, field.size() - s.size())), quantity, {}};
  }
  return {QString::fromStdString(field), Quantity::plain, {}};
}

AxisUnit axis_unit(const FieldLabel& label, double largest) {
  const double a = std::fabs(largest);
  const auto counted = [&](const QString& prefix) {
    return label.noun.isEmpty() ? prefix : prefix.isEmpty() ? label.noun : prefix + " " + label.noun;
  };
  switch (label.quantity) {
    case Quantity::count:
      if (a >= 1e9) return {1e9, counted("billion")};
      if (a >= 1e6) return {1e6, counted("million")};
      return {1, counted({})};
    case Quantity::duration:
      if (a >= 2 * 86400.0) return {86400.0, "days"};
      if (a >= 2 * 3600.0) return {3600.0, "h"};
      if (a >= 120.0) return {60.0, "min"};
      if (a >= 1.0 || a == 0) return {1.0, "s"};
      return {1e-3, "ms"};
    case Quantity::money:
    case Quantity::money_per_year:
      if (a >= 1e6) return {1e6, "$M"};
      if (a >= 1e3) return {1e3, "$k"};
      return {1, "$"};
    case Quantity::power:
      if (a >= 1e6) return {1e6, "MW"};
      if (a >= 1e3) return {1e3, "kW"};
      return {1, "W"};
    case Quantity::energy:
      if (a >= 3.6e9) return {3.6e9, "MWh"};
      if (a >= 3.6e6) return {3.6e6, "kWh"};
      return {1, "J"};
    case Quantity::bytes:
      if (a >= 1e12) return {1e12, "TB"};
      if (a >= 1e9) return {1e9, "GB"};
      if (a >= 1e6) return {1e6, "MB"};
      return {1, "bytes"};
    case Quantity::fraction: return {0.01, "%"};
    case Quantity::rate:
      if (a >= 1e6) return {1e6, "M " + label.noun + "/s"};
      if (a >= 1e3) return {1e3, "k " + label.noun + "/s"};
      return {1, label.noun + "/s"};
    case Quantity::plain:
    case Quantity::text: break;
  }
  return {1, label.noun};
}

QString axis_title(const FieldLabel& label, const AxisUnit& unit) {
  return unit.unit.isEmpty() ? label.words : label.words + " (" + unit.unit + ")";
}

QString format_field(const std::string& field, double value) {
  if (!std::isfinite(value)) return QStringLiteral("-");
  const FieldLabel label = field_label(field);
  switch (label.quantity) {
    case Quantity::count: {
      const QString n = value == std::round(value) && std::fabs(value) < 1e15 ? format_count(value) : plain_digits(value);
      return label.noun.isEmpty() ? n : n + " " + label.noun;
    }
    case Quantity::duration: return format_duration(value);
    case Quantity::money: return format_dollars(value);
    case Quantity::money_per_year: return format_dollars_per_year(value);
    case Quantity::power: return format_watts(value);
    case Quantity::energy: return format_si(value / 3600.0, "Wh");
    case Quantity::bytes: return format_bytes(value);
    case Quantity::fraction: return format_percent(value);
    case Quantity::rate: return format_rate(value, label.noun);
    case Quantity::plain:
    case Quantity::text: break;
  }
  return label.noun.isEmpty() ? plain_digits(value) : plain_digits(value) + " " + label.noun;
}

QString field_choice_text(const std::string& field) {
  for (const KnownField& k : kKnownFields) {
    if (field == k.key) return k.words;
  }
  if (const FieldLabel l = field_label(field); l.quantity == Quantity::duration && field.starts_with("serving.")) {
    return l.words;  // a latency statistic
  }
  return QString::fromStdString(field);
}

}  // namespace cs::gui
