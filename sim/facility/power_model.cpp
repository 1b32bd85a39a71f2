#include "sim/facility/power_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/core/error.hpp"

namespace cs {
namespace {

std::string kw(Watts w) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f kW", w.value() / 1000.0);
  return buf;
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

}  // namespace

GpuPowerCurve tdp_power_curve(const GpuSpec& gpu, const PowerConfig& config) {
  const Watts span = gpu.tdp - gpu.idle_power;
  return GpuPowerCurve{
      .compute = gpu.tdp,
      .memory = gpu.idle_power + span * config.memory_bound_load,
      .communication = gpu.idle_power + span * config.communication_load,
      .idle = gpu.idle_power,
      .source = "TDP-based: " + gpu.name + " datasheet TDP and idle power, state loads from facility.power",
  };
}

double apply_power_cap(GpuPowerCurve& curve, Watts cap, double dvfs_exponent) {
  if (cap <= curve.idle) {
    throw InputError({}, "facility.power.gpu_power_cap",
                     "cap " + to_string(cap) + " is not above the GPU's idle power " + to_string(curve.idle));
  }
  double slowdown = 1.0;
  if (cap < curve.compute) {
    slowdown = std::pow((curve.compute - curve.idle) / (cap - curve.idle), 1.0 / dvfs_exponent);
    curve.compute = cap;
  }
  curve.memory = std::min(curve.memory, cap);
  curve.communication = std::min(curve.communication, cap);
  curve.source += "; capped at " + to_string(cap);
  return slowdown;
}

RackPlan plan_racks(const CoolingConfig& cooling, int nodes, int node_rack_units, Watts node_peak,
                    int network_rack_units, Watts network_peak, std::vector<std::string>& warnings) {
  RackPlan plan;
  const Watts budget = cooling.rack_power_budget;
  // A rack is over budget when its peak exceeds the budget by more than rounding (4 x 10.2 kW = 40.8 kW fits).
  const auto over = [](Watts load, Watts limit) { return load.value() > limit.value() * (1.0 + 1e-9); };
  const int by_space = cooling.rack_units / node_rack_units;
  if (cooling.nodes_per_rack > 0) {
    plan.nodes_per_rack = cooling.nodes_per_rack;
    if (plan.nodes_per_rack > by_space) {
      warnings.push_back("facility.cooling.nodes_per_rack: " + std::to_string(plan.nodes_per_rack) + " nodes of " +
                         std::to_string(node_rack_units) + "U do not fit in " + std::to_string(cooling.rack_units) +
                         "U racks");
    }
  } else {
    const int by_power = static_cast<int>(std::floor(budget / node_peak + 1e-9));
    plan.nodes_per_rack = std::max(1, std::min(by_power, by_space));
  }
  plan.compute_rack_peak = node_peak * plan.nodes_per_rack;
  if (over(plan.compute_rack_peak, budget)) {
    warnings.push_back("breaker trip risk: a compute rack of " + std::to_string(plan.nodes_per_rack) + " nodes peaks at " +
                       kw(plan.compute_rack_peak) + ", above the rack power budget of " + kw(budget));
  }
  plan.compute_racks = ceil_div(nodes, plan.nodes_per_rack);
  if (network_rack_units > 0) {
    const int by_units = ceil_div(network_rack_units, cooling.rack_units);
    const int by_watts = static_cast<int>(std::ceil(network_peak / budget - 1e-9));
    plan.network_racks = std::max(by_units, by_watts);
  }
  plan.rows = ceil_div(plan.total_racks(), cooling.racks_per_row);
  plan.row_peak = plan.compute_rack_peak * std::min(plan.compute_racks, cooling.racks_per_row);
  if (cooling.row_power_budget && over(plan.row_peak, *cooling.row_power_budget)) {
    warnings.push_back("breaker trip risk: a row of " + std::to_string(std::min(plan.compute_racks, cooling.racks_per_row)) +
                       " compute racks peaks at " + kw(plan.row_peak) + ", above the row power budget of " +
                       kw(*cooling.row_power_budget));
  }
  return plan;
}

PowerReport compute_power(const FacilityConfig& config, const ClusterInventory& inv, const RunProfile& run,
                          const PriceBook& book) {
  validate(inv);
  validate(run);
  PowerReport r;
  r.pue = config.cooling.pue;
  r.curve = run.measured_power ? *run.measured_power : tdp_power_curve(run.gpu, config.power);
  if (config.power.gpu_power_cap) {
    const double slowdown = apply_power_cap(r.curve, *config.power.gpu_power_cap, config.power.dvfs_exponent);
    r.compute_slowdown = run.cap_in_step_time ? 1.0 : slowdown;
  }

  // The step under the cap: only its compute-bound share stretches.
  const StepStateFractions& f = run.fractions;
  r.step_slowdown = f.compute * r.compute_slowdown + f.memory + f.communication + f.idle;
  r.step_time = Time::from_seconds(run.step_time.seconds() * r.step_slowdown);
  // Time-weighted board power over the (capped) step.
  r.gpu_average = (r.curve.compute * (f.compute * r.compute_slowdown) + r.curve.memory * f.memory +
                   r.curve.communication * f.communication + r.curve.idle * f.idle) /
                  r.step_slowdown;

  const int gpn = inv.node.gpus_per_node;
  // The node's maximum less its GPUs' datasheet TDP (not a measured compute power) is the rest of the server.
  const Watts node_max = book.power(inv.node.price, true);
  r.server_overhead_max = node_max - run.gpu.tdp * gpn;
  if (r.server_overhead_max.value() < 0) {
    throw InputError(book.at(inv.node.price).where, inv.node.price.id,
                     "node maximum power " + to_string(node_max) + " is below its " + std::to_string(gpn) +
                         " GPUs at " + to_string(run.gpu.tdp) + " TDP");
  }
  // Peak: GPUs at their TDP, or at the cap when one is set (what the rack breaker must carry).
  const Watts gpu_peak = config.power.gpu_power_cap ? std::min(run.gpu.tdp, *config.power.gpu_power_cap) : run.gpu.tdp;
  r.node_average = r.gpu_average * gpn + r.server_overhead_max * config.power.server_overhead_load;
  r.node_peak = gpu_peak * gpn + r.server_overhead_max;
  r.node_idle = r.curve.idle * gpn + r.server_overhead_max * config.power.server_idle_load;

  int network_units = 0;
  for (const SwitchGroup& s : inv.switches) {
    r.switch_power += book.power(s.model, false) * s.count;
    network_units += s.rack_units * s.count;
  }
  for (const TransceiverGroup& t : inv.transceivers) {
    if (!t.in_node) r.transceiver_power += book.power(t.model, false) * t.count;
  }
  for (const OtherPart& o : inv.other) {
    const PriceItem& item = book.at(o.model);
    if (item.power_typical || item.power_max) r.other_power += book.power(o.model, false) * o.count;
    network_units += o.rack_units * o.count;
  }
  const Watts shared = r.switch_power + r.transceiver_power + r.other_power;
  const double nodes = inv.node_count;
  r.it_average = r.node_average * nodes + shared;
  r.it_peak = r.node_peak * nodes + shared;
  r.it_idle = r.node_idle * nodes + shared;
  r.facility_average = r.it_average * r.pue;
  r.facility_peak = r.it_peak * r.pue;
  r.step_energy_it = r.it_average * r.step_time;
  r.step_energy_facility = r.step_energy_it * r.pue;
  r.racks = plan_racks(config.cooling, inv.node_count, inv.node.rack_units, r.node_peak, network_units, shared,
                       r.warnings);
  return r;
}

}  // namespace cs
