#include "sim/design/design_report.hpp"

#include <fmt/format.h>

#include "sim/core/human_units.hpp"

namespace cs {

nlohmann::ordered_json design_json(const DesignReport& rep) {
  nlohmann::ordered_json j;
  j["scenario"] = rep.scenario;
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
    e["step_time_s"] = c.step_time_s;
    e["time_to_train_s"] = c.time_to_train_s;
    e["tco_usd_per_year"] = c.tco_usd_per_year;
    if (c.placement) {
      e["placement"] = {{"method", c.placement->method},
                        {"step_time_default_s", c.placement->step_time_default.seconds()},
                        {"step_time_s", c.placement->step_time.seconds()},
                        {"kept", c.placement->kept}};
    }
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

}  // namespace cs
