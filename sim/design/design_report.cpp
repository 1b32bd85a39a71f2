#include "sim/design/design_report.hpp"

#include <cmath>
#include <fmt/format.h>

#include "sim/core/human_units.hpp"

namespace cs {
namespace {

nlohmann::ordered_json or_null(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
}

nlohmann::ordered_json schedule_figures_json(const ScheduleFigures& f, const DesignCandidate& c) {
  nlohmann::ordered_json s;
  s["training_finished_s"] = or_null(f.training_finished_s);
  s["training_jobs"] = f.training_jobs;
  s["training_unfinished"] = f.training_unfinished;
  s["training_gpu_hours"] = f.training_gpu_hours;
  s["worst_slo_attainment"] = or_null(f.worst_slo_attainment);
  s["worst_service"] = f.worst_service.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(f.worst_service);
  s["meets_slo"] = c.meets_slo;
  s["energy_kwh"] = f.energy_kwh;
  s["peak_facility_kw"] = f.peak_facility_kw;
  s["cost_usd"] = f.cost_usd;
  s["gpu_busy_fraction"] = f.gpu_busy_fraction;
  s["node_failures"] = f.node_failures;
  auto& jobs = s["jobs"] = nlohmann::ordered_json::array();
  for (const ScheduleFigures::Job& j : f.jobs) {
    jobs.push_back({{"name", j.name}, {"finished_s", or_null(j.finished_s)}, {"alone_s", j.alone_s},
                    {"gpu_hours", j.gpu_hours}});
  }
  return s;
}

std::string schedule_text(const DesignReport& rep);

}  // namespace

nlohmann::ordered_json design_json(const DesignReport& rep) {
  nlohmann::ordered_json j;
  j["workload"] = rep.workload;
  j["scenario"] = rep.scenario;
  if (rep.span_s) j["span_s"] = *rep.span_s;
  j["gpus"] = rep.gpus;
  j["nodes"] = rep.nodes;
  if (rep.budget) j["budget_usd"] = rep.budget->value();
  if (rep.power) j["power_limit_w"] = rep.power->value();
  j["best"] = rep.best >= 0 ? nlohmann::ordered_json(rep.candidates[static_cast<std::size_t>(rep.best)].label) : nlohmann::ordered_json();
  auto& traffic = j["traffic_by_stride"] = nlohmann::ordered_json::array();
  for (const StrideTraffic& t : rep.traffic) traffic.push_back({{"stride_nodes", t.stride}, {"bytes_per_step", t.bytes}});
  j["merged"] = rep.merged;
  auto& list = j["candidates"] = nlohmann::ordered_json::array();
  for (const DesignCandidate& c : rep.candidates) {
    nlohmann::ordered_json e;
    e["family"] = c.family;
    e["label"] = c.label;
    e["tiers"] = c.tiers;
    e["oversubscription"] = c.oversubscription;
    if (!c.error.empty()) {
      e["error"] = c.error;
      e["pareto"] = false;
      list.push_back(std::move(e));
      continue;
    }
    e["network_capex_usd"] = c.network_capex_usd;
    e["capex_usd"] = c.capex_usd;
    e["network_power_w"] = c.network_power_w;
    e["it_peak_power_w"] = c.it_peak_power_w;
    // A schedule has no one step (its jobs' are in "schedule"); its time to train is null when a training job
    // was unfinished at the end of the span.
    e["step_time_s"] = c.schedule ? nlohmann::ordered_json() : nlohmann::ordered_json(c.step_time_s);
    e["time_to_train_s"] = or_null(std::isfinite(c.time_to_train_s) ? std::optional(c.time_to_train_s) : std::nullopt);
    e["tco_usd_per_year"] = c.tco_usd_per_year;
    if (c.placement) {
      e["placement"] = {{"method", c.placement->method},
                        {"step_time_default_s", c.placement->step_time_default.seconds()},
                        {"step_time_s", c.placement->step_time.seconds()},
                        {"kept", c.placement->kept}};
    }
    if (c.schedule) e["schedule"] = schedule_figures_json(*c.schedule, c);
    e["pareto"] = c.pareto;
    e["within_limits"] = c.within_limits;
    e["verdict"] = c.verdict;
    auto& bom = e["network_bom"] = nlohmann::ordered_json::array();
    for (const BomLine& l : c.network_bom) {
      bom.push_back({{"item", l.item}, {"quantity", l.quantity}, {"unit_price_usd", l.unit_price.value()},
                     {"total_usd", l.total.value()}, {"price_id", l.price_id}, {"source", l.citation}});
    }
    list.push_back(std::move(e));
  }
  return j;
}

std::string design_text(const DesignReport& rep) {
  if (rep.workload == "schedule") return schedule_text(rep);
  std::string out = fmt::format("Fabric design for {} on {} GPUs ({} nodes)\n\n", rep.scenario, rep.gpus, rep.nodes);
  out += fmt::format("{:<34} {:>5} {:>13} {:>11} {:>11} {:>10} {:>11} {:>12} {:>6}\n", "candidate", "tiers",
                     "network capex", "capex", "net. power", "step", "to train", "TCO", "front");
  for (const DesignCandidate& c : rep.candidates) {
    if (!c.error.empty()) {
      out += fmt::format("{:<34} not built: {}\n", c.label, c.error);
      continue;
    }
    out += fmt::format("{:<34} {:>5} {:>13} {:>11} {:>11} {:>10} {:>11} {:>12} {:>6}\n", c.label, c.tiers,
                       format_dollars(c.network_capex_usd), format_dollars(c.capex_usd), format_watts(c.network_power_w),
                       format_duration(c.step_time_s), format_duration(c.time_to_train_s),
                       format_dollars_per_year(c.tco_usd_per_year), c.pareto ? "yes" : "");
  }
  out += "\n";
  if (rep.best >= 0) {
    const DesignCandidate& b = rep.candidates[static_cast<std::size_t>(rep.best)];
    std::string limits;
    if (rep.budget) limits += " under " + format_dollars(rep.budget->value()) + " capex";
    if (rep.power) limits += std::string(limits.empty() ? " under " : " and ") + format_watts(rep.power->value()) + " IT peak";
    out += fmt::format("best{}: {} (time to train {}, network capex {}, TCO {})\n", limits, b.label,
                       format_duration(b.time_to_train_s), format_dollars(b.network_capex_usd),
                       format_dollars_per_year(b.tco_usd_per_year));
    out += "  network bill of materials:\n";
    for (const BomLine& l : b.network_bom) {
      out += fmt::format("    {:>8.0f} x {:<66} {:>9} each {:>10}   [{}]\n", l.quantity, l.item,
                         format_dollars(l.unit_price.value()), format_dollars(l.total.value()), l.citation);
    }
  } else {
    out += "no candidate fits the limits\n";
  }
  bool placed = false;
  for (const DesignCandidate& c : rep.candidates) {
    if (!c.placement) continue;
    if (!placed) out += "\nplacement: optimise (" + c.placement->method + "), verified by the replay:\n";
    placed = true;
    const char* why = c.placement->kept ? ""
                      : c.family == "ocs" ? " (the circuits follow the job: nothing to place)"
                      : c.placement->cost < c.placement->cost_default ? " (a lower-cost placement simulated no faster)"
                                                                      : " (Megatron's order has the lowest fabric cost)";
    out += fmt::format("  {:<34} {} -> {}{}\n", c.label, format_duration(c.placement->step_time_default.seconds()),
                       format_duration(c.placement->step_time.seconds()), why);
  }
  for (const std::string& m : rep.merged) out += "merged: " + m + "\n";
  out += "\nwhy the others lost:\n";
  for (const DesignCandidate& c : rep.candidates) {
    if (c.verdict != "best") out += fmt::format("  {:<34} {}\n", c.label, c.verdict.empty() ? c.error : c.verdict);
  }
  out += "\n(time to train: the token budget's steps at the simulated step time, without failures; TCO at the"
         " scenario's utilisation; network power: switches at typical draw and switch-side optics)\n";
  return out;
}

namespace {

std::string best_and_bom(const DesignReport& rep) {
  std::string out;
  if (rep.best < 0) return "no candidate fits the limits\n";
  const DesignCandidate& b = rep.candidates[static_cast<std::size_t>(rep.best)];
  std::string limits;
  if (rep.budget) limits += " under " + format_dollars(rep.budget->value()) + " capex";
  if (rep.power) limits += std::string(limits.empty() ? " under " : " and ") + format_watts(rep.power->value()) + " IT peak";
  out += fmt::format("best{}: {} (training done {}, network capex {}, TCO {})\n", limits, b.label,
                     std::isfinite(b.time_to_train_s) ? format_duration(b.time_to_train_s) : "unfinished",
                     format_dollars(b.network_capex_usd), format_dollars_per_year(b.tco_usd_per_year));
  out += "  network bill of materials:\n";
  for (const BomLine& l : b.network_bom) {
    out += fmt::format("    {:>8.0f} x {:<66} {:>9} each {:>10}   [{}]\n", l.quantity, l.item,
                       format_dollars(l.unit_price.value()), format_dollars(l.total.value()), l.citation);
  }
  return out;
}

std::string schedule_text(const DesignReport& rep) {
  std::string out = fmt::format("Fabric design for the schedule {} on {} GPUs ({} nodes), over {}\n\n", rep.scenario,
                                rep.gpus, rep.nodes, format_duration(rep.span_s.value_or(0)));
  out += fmt::format("{:<34} {:>5} {:>13} {:>11} {:>11} {:>13} {:>9} {:>10} {:>11} {:>12} {:>6}\n", "candidate",
                     "tiers", "network capex", "capex", "net. power", "training done", "train GPU-h", "worst SLO",
                     "energy", "TCO", "front");
  for (const DesignCandidate& c : rep.candidates) {
    if (!c.error.empty() || !c.schedule) {
      out += fmt::format("{:<34} not built: {}\n", c.label, c.error);
      continue;
    }
    const ScheduleFigures& f = *c.schedule;
    out += fmt::format("{:<34} {:>5} {:>13} {:>11} {:>11} {:>13} {:>11.1f} {:>10} {:>11} {:>12} {:>6}\n", c.label,
                       c.tiers, format_dollars(c.network_capex_usd), format_dollars(c.capex_usd),
                       format_watts(c.network_power_w),
                       f.training_finished_s ? format_duration(*f.training_finished_s) : "unfinished",
                       f.training_gpu_hours,
                       f.worst_slo_attainment ? fmt::format("{:.1f}%", 100 * *f.worst_slo_attainment) : "-",
                       fmt::format("{:.0f} kWh", f.energy_kwh), format_dollars_per_year(c.tco_usd_per_year),
                       c.pareto ? "yes" : "");
  }
  out += "\n" + best_and_bom(rep);
  for (const std::string& m : rep.merged) out += "merged: " + m + "\n";
  out += "\nwhy the others lost:\n";
  for (const DesignCandidate& c : rep.candidates) {
    if (c.verdict != "best") out += fmt::format("  {:<34} {}\n", c.label, c.verdict.empty() ? c.error : c.verdict);
  }
  out += "\n(training done: when the schedule's last training job finished, every job replayed on the candidate; "
         "worst SLO: the lowest request-weighted attainment of a service over the span; TCO per year: the bill's "
         "fixed costs plus the schedule's energy, the span repeated; network power: switches at typical draw and "
         "switch-side optics)\n";
  return out;
}

}  // namespace

}  // namespace cs
