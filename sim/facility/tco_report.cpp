#include "sim/facility/tco_report.hpp"

#include "sim/core/human_units.hpp"

#include <fmt/format.h>

#include <cmath>

namespace cs {
namespace {

using J = nlohmann::ordered_json;

J optional_number(const std::optional<double>& v) { return v ? J(*v) : J(nullptr); }

double hours(Time t) { return t.seconds() / 3600.0; }
double days(Time t) { return t.seconds() / 86400.0; }
double kw(Watts w) { return w.value() / 1000.0; }
double kwh(Joules e) { return e.value() / kJoulesPerKwh; }

/// A table cell as a person reads it: money, power and energy with a prefix that fits ("$39.2 M", "1.24 MW");
/// the CSV keeps the plain numbers and units.
std::string human_value(double value, const std::string& unit) {
  if (std::isnan(value)) return "-";
  if (unit == "USD") return format_dollars(value);
  if (unit == "USD/yr") return format_dollars_per_year(value);
  if (unit == "W") return format_watts(value);
  if (unit == "kW") return format_watts(value * 1e3);
  if (unit == "kWh") return format_energy(value * 3.6e6);
  if (unit == "MWh") return format_energy(value * 3.6e9);
  if (unit.rfind("USD/", 0) == 0) return fmt::format("${:.3g}/{}", value, unit.substr(4));
  return fmt::format("{:.4g} {}", value, unit);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

J power_json(const PowerReport& p) {
  return J{
      {"gpu_power_curve",
       {{"compute_w", p.curve.compute.value()},
        {"memory_w", p.curve.memory.value()},
        {"communication_w", p.curve.communication.value()},
        {"idle_w", p.curve.idle.value()},
        {"source", p.curve.source}}},
      {"gpu_average_w", p.gpu_average.value()},
      {"node_average_w", p.node_average.value()},
      {"node_peak_w", p.node_peak.value()},
      {"node_idle_w", p.node_idle.value()},
      {"server_overhead_max_w", p.server_overhead_max.value()},
      {"switches_w", p.switch_power.value()},
      {"switch_transceivers_w", p.transceiver_power.value()},
      {"other_parts_w", p.other_power.value()},
      {"it_average_w", p.it_average.value()},
      {"it_peak_w", p.it_peak.value()},
      {"it_idle_w", p.it_idle.value()},
      {"pue", p.pue},
      {"facility_average_w", p.facility_average.value()},
      {"facility_peak_w", p.facility_peak.value()},
      {"step_time_s", p.step_time.seconds()},
      {"power_cap_compute_slowdown", p.compute_slowdown},
      {"power_cap_step_slowdown", p.step_slowdown},
      {"step_energy_it_j", p.step_energy_it.value()},
      {"step_energy_facility_j", p.step_energy_facility.value()},
      {"racks",
       {{"nodes_per_rack", p.racks.nodes_per_rack},
        {"compute_racks", p.racks.compute_racks},
        {"network_racks", p.racks.network_racks},
        {"total_racks", p.racks.total_racks()},
        {"rows", p.racks.rows},
        {"compute_rack_peak_w", p.racks.compute_rack_peak.value()},
        {"row_peak_w", p.racks.row_peak.value()}}},
      {"warnings", p.warnings},
  };
}

J reliability_json(const ReliabilityReport& r) {
  return J{
      {"failures_per_hour",
       {{"gpu", r.gpu_failures_per_hour},
        {"node", r.node_failures_per_hour},
        {"link", r.link_failures_per_hour},
        {"software", r.software_failures_per_hour}}},
      {"mtbf_s", r.mtbf.seconds()},
      {"checkpoint_bytes", r.checkpoint_size.value()},
      {"checkpoint_write_s", r.checkpoint_write.seconds()},
      {"checkpoint_restore_s", r.checkpoint_restore.seconds()},
      {"restart_s", r.restart_time.seconds()},
      {"young_interval_s", r.young_interval.seconds()},
      {"daly_interval_s", r.daly_interval.seconds()},
      {"checkpoint_interval_s", r.interval_used.seconds()},
      {"goodput", r.goodput},
      {"ideal_train_time_s", r.ideal_train_time.seconds()},
      {"effective_train_time_s", r.effective_train_time.seconds()},
      {"expected_interruptions", r.expected_interruptions},
      {"expected_nodes_down", r.expected_nodes_down},
      {"spare_nodes", r.spare_nodes},
  };
}

J tco_json(const TcoReport& t) {
  J bom = J::array();
  for (const BomLine& l : t.bom.lines) {
    bom.push_back({{"category", l.category},
                   {"item", l.item},
                   {"quantity", l.quantity},
                   {"quantity_unit", l.quantity_unit},
                   {"unit_price_usd", l.unit_price.value()},
                   {"total_usd", l.total.value()},
                   {"price_id", l.price_id},
                   {"source", l.citation}});
  }
  J annual = J::array();
  for (const AnnualCost& a : t.annual) {
    annual.push_back({{"item", a.item}, {"usd_per_year", usd_per_year(a.cost)}, {"price_id", a.price_id},
                      {"source", a.citation}});
  }
  J cloud = J::array();
  for (const CloudComparison& c : t.cloud) {
    cloud.push_back({{"label", c.label},
                     {"price_id", c.price_id},
                     {"source", c.citation},
                     {"usd_per_gpu_hour", c.rate.value()},
                     {"run_cost_usd", c.run_cost.value()},
                     {"usd_per_million_tokens", c.per_million_tokens.value()},
                     {"usd_per_year_at_utilisation", usd_per_year(c.yearly_cost)},
                     {"break_even_utilisation", optional_number(c.break_even_utilisation)},
                     {"break_even_months", optional_number(c.break_even_months)}});
  }
  return J{
      {"site", t.site},
      {"cooling", t.cooling},
      {"utilisation", t.utilisation},
      {"gpus", t.gpu_count},
      {"bill_of_materials", bom},
      {"hardware_capex_usd", t.hardware_capex.value()},
      {"facility_capex_usd", t.facility_capex.value()},
      {"capital_recovery_factor", t.capital_recovery_factor},
      {"annual_costs", annual},
      {"tco_usd_per_year", usd_per_year(t.tco_per_year)},
      {"tco_lifetime_usd", t.tco_lifetime.value()},
      {"owned_usd_per_gpu_hour", t.owned_per_gpu_hour.value()},
      {"owned_usd_per_used_gpu_hour", t.owned_per_used_gpu_hour.value()},
      {"run_cost_usd", t.run_cost.value()},
      {"run_usd_per_million_tokens", t.run_cost_per_million_tokens.value()},
      {"run_energy_facility_j", t.run_energy_facility.value()},
      {"cloud", cloud},
      {"warnings", t.warnings},
  };
}

std::vector<TcoRow> tco_rows(const TcoReport& t) {
  std::vector<TcoRow> rows;
  const auto add = [&](const char* section, std::string item, double value, std::string unit, std::string source = "") {
    rows.push_back({section, std::move(item), std::nullopt, "", value, std::move(unit), std::move(source)});
  };
  for (const BomLine& l : t.bom.lines) {
    rows.push_back({"bill of materials", l.item, l.quantity, l.quantity_unit, l.total.value(), "USD",
                    fmt::format("{:.6g} USD per {}; {}", l.unit_price.value(), l.quantity_unit == "TB" ? "TB" : "item",
                                l.citation)});
  }
  add("bill of materials", "hardware capex", t.hardware_capex.value(), "USD", "sum of the lines above");
  if (t.facility_capex.value() > 0) add("bill of materials", "facility construction", t.facility_capex.value(), "USD");

  const PowerReport& p = t.power;
  add("power", "GPU board power, step average", p.gpu_average.value(), "W", p.curve.source);
  add("power", "node, step average", p.node_average.value(), "W");
  add("power", "node, peak", p.node_peak.value(), "W", "price-book power_max of the node, GPUs under any cap");
  add("power", "node, idle", p.node_idle.value(), "W");
  add("power", "switches (typical, passive cables)", kw(p.switch_power), "kW", "price-book power_typical");
  add("power", "switch-side transceivers", kw(p.transceiver_power), "kW", "price-book power_typical");
  add("power", "other powered parts", kw(p.other_power), "kW");
  add("power", "IT load, step average", kw(p.it_average), "kW");
  add("power", "IT load, peak", kw(p.it_peak), "kW");
  add("power", "IT load, idle", kw(p.it_idle), "kW");
  add("power", "PUE", p.pue, "ratio");
  add("power", "facility load, step average", kw(p.facility_average), "kW");
  add("power", "facility load, peak", kw(p.facility_peak), "kW");
  add("power", "step time under the power cap", p.step_time.seconds(), "s");
  add("power", "power-cap slowdown of the step", p.step_slowdown, "ratio");
  add("power", "energy per step, facility", kwh(p.step_energy_facility), "kWh");
  add("power", "energy of the training run, facility", kwh(t.run_energy_facility) / 1000.0, "MWh");
  add("racks", "nodes per compute rack", p.racks.nodes_per_rack, "count");
  add("racks", "compute racks", p.racks.compute_racks, "count");
  add("racks", "network and management racks", p.racks.network_racks, "count");
  add("racks", "rows", p.racks.rows, "count");
  add("racks", "compute rack peak", kw(p.racks.compute_rack_peak), "kW");

  const ReliabilityReport& r = t.reliability;
  add("reliability", "GPU failures", r.gpu_failures_per_hour * 24.0, "per day");
  add("reliability", "host failures", r.node_failures_per_hour * 24.0, "per day");
  add("reliability", "link failures", r.link_failures_per_hour * 24.0, "per day");
  add("reliability", "software failures", r.software_failures_per_hour * 24.0, "per day");
  add("reliability", "cluster MTBF", hours(r.mtbf), "h");
  add("reliability", "checkpoint size", r.checkpoint_size.value() / 1e9, "GB");
  add("reliability", "checkpoint write", r.checkpoint_write.seconds(), "s");
  add("reliability", "restart (overhead + restore)", r.restart_time.seconds(), "s");
  add("reliability", "Young interval", r.young_interval.seconds(), "s");
  add("reliability", "Daly interval", r.daly_interval.seconds(), "s");
  add("reliability", "checkpoint interval used", r.interval_used.seconds(), "s");
  add("reliability", "goodput", 100.0 * r.goodput, "%");
  add("reliability", "time to train, no failures", days(r.ideal_train_time), "days");
  add("reliability", "time to train, with failures", days(r.effective_train_time), "days");
  add("reliability", "expected interruptions during the run", r.expected_interruptions, "count");
  add("reliability", "spare nodes", r.spare_nodes, "count");

  for (const AnnualCost& a : t.annual) add("yearly cost", a.item, usd_per_year(a.cost), "USD/yr", a.citation);
  add("yearly cost", fmt::format("TCO at {:.0f}% utilisation", 100 * t.utilisation), usd_per_year(t.tco_per_year),
      "USD/yr");
  add("yearly cost", "TCO over the depreciation period", t.tco_lifetime.value(), "USD");
  add("unit cost", "owned, per GPU-hour (busy all year)", t.owned_per_gpu_hour.value(), "USD/GPU-h");
  add("unit cost", "owned, per used GPU-hour at the utilisation", t.owned_per_used_gpu_hour.value(), "USD/GPU-h");
  add("unit cost", "training run, owned", t.run_cost.value(), "USD");
  add("unit cost", "training run, owned, per million tokens", t.run_cost_per_million_tokens.value(), "USD/Mtok");
  for (const CloudComparison& c : t.cloud) {
    const std::string label = "cloud " + c.label;
    add("cloud", label + ": rate", c.rate.value(), "USD/GPU-h", c.citation);
    add("cloud", label + ": training run", c.run_cost.value(), "USD");
    add("cloud", label + ": per million tokens", c.per_million_tokens.value(), "USD/Mtok");
    add("cloud", label + ": a year at the utilisation", usd_per_year(c.yearly_cost), "USD/yr");
    if (c.break_even_utilisation) add("cloud", label + ": break-even utilisation", 100 * *c.break_even_utilisation, "%");
    else add("cloud", label + ": break-even utilisation", NAN, "%", "never: renting is cheaper even at 100%");
    if (c.break_even_months) add("cloud", label + ": payback of the capex", *c.break_even_months, "months");
    else add("cloud", label + ": payback of the capex", NAN, "months", "never: running costs exceed the rent");
  }
  return rows;
}

std::string tco_table(const TcoReport& t) {
  std::string out;
  std::string section;
  for (const TcoRow& row : tco_rows(t)) {
    if (row.section != section) {
      section = row.section;
      out += fmt::format("\n{}\n", section);
    }
    const std::string qty = row.quantity ? fmt::format("{:>10.6g} {:<4}", *row.quantity, row.quantity_unit) : "";
    out += fmt::format("  {:<66} {:>15} {:>16} {}\n", row.item, qty, human_value(row.value, row.unit), row.source);
  }
  if (!t.warnings.empty()) out += "\n";
  for (const std::string& w : t.warnings) out += "warning: " + w + "\n";
  return out;
}

std::string tco_csv(const TcoReport& t) {
  std::string out = "section,item,quantity,quantity_unit,value,unit,source\n";
  for (const TcoRow& row : tco_rows(t)) {
    out += fmt::format("{},{},{},{},{},{},{}\n", csv_field(row.section), csv_field(row.item),
                       row.quantity ? fmt::format("{:.10g}", *row.quantity) : "", row.quantity_unit,
                       std::isnan(row.value) ? "" : fmt::format("{:.10g}", row.value), row.unit, csv_field(row.source));
  }
  return out;
}

std::string tco_summary(const TcoReport& t) {
  std::string out = "\nPower, reliability and cost (clustersim tco SCENARIO for the full breakdown)\n";
  const auto line = [&](std::string_view label, const std::string& value) {
    out += fmt::format("  {:<30} {}\n", label, value);
  };
  const PowerReport& p = t.power;
  line("IT power (step avg / peak)", fmt::format("{} / {}, PUE {:.2f} ({}) -> {} at the meter",
                                                 format_watts(p.it_average.value()), format_watts(p.it_peak.value()),
                                                 p.pue, t.cooling, format_watts(p.facility_average.value())));
  line("racks", fmt::format("{} compute ({} nodes each) + {} network", p.racks.compute_racks, p.racks.nodes_per_rack,
                            p.racks.network_racks));
  const ReliabilityReport& r = t.reliability;
  line("MTBF, goodput", fmt::format("{:.1f} h, {:.2f}% (checkpoint every {})", hours(r.mtbf), 100 * r.goodput,
                                    to_string(r.interval_used)));
  line("time to train with failures", fmt::format("{:.1f} days", days(r.effective_train_time)));
  line("capex", fmt::format("{} hardware{}", format_dollars(t.hardware_capex.value()),
                            t.facility_capex.value() > 0 ? " + " + format_dollars(t.facility_capex.value()) + " facility" : ""));
  line("TCO", fmt::format("{} ({}, {:.0f}% utilisation)", format_dollars_per_year(usd_per_year(t.tco_per_year)), t.site,
                          100 * t.utilisation));
  line("owned cost", fmt::format("${:.3f}/GPU-h; run {} (${:.3g}/Mtok)", t.owned_per_gpu_hour.value(),
                                 format_dollars(t.run_cost.value()), t.run_cost_per_million_tokens.value()));
  for (const CloudComparison& c : t.cloud) {
    line("cloud " + c.label,
         fmt::format("${:.2f}/GPU-h ({}): run {}; break-even {}", c.rate.value(), c.price_id,
                     format_dollars(c.run_cost.value()),
                     c.break_even_utilisation ? fmt::format("at {:.0f}% utilisation", 100 * *c.break_even_utilisation)
                                              : std::string("never")));
  }
  for (const std::string& w : t.warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace cs
