// IT and facility power of a cluster running a simulated step: GPU board power by state (measured curve or
// TDP-based), the rest of each server, switches and their optics, and other powered parts; racks sized by the
// rack power budget with breaker-trip warnings; a per-GPU power cap and the slowdown it costs.
#pragma once

#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/facility/cluster_inventory.hpp"
#include "sim/facility/facility_config.hpp"
#include "sim/facility/price_book.hpp"
#include "sim/facility/run_profile.hpp"

namespace cs {

/// Racks needed: compute racks hold nodes, network racks hold switches and other rack-mounted parts.
struct RackPlan {
  int nodes_per_rack = 0;
  int compute_racks = 0;
  int network_racks = 0;
  int rows = 0;
  Watts compute_rack_peak;  ///< peak power of a full compute rack
  Watts row_peak;           ///< peak power of a full row of compute racks
  [[nodiscard]] int total_racks() const noexcept { return compute_racks + network_racks; }
};

struct PowerReport {
  GpuPowerCurve curve;        ///< per-GPU board power by state, after any cap
  Watts gpu_average;          ///< one GPU over a step
  Watts server_overhead_max;  ///< one node's maximum minus its GPUs' TDP (CPUs, NICs, fans, optics in the node)
  Watts node_average;         ///< one node over a step
  Watts node_peak;            ///< one node with its GPUs at TDP (or at the cap, if lower)
  Watts node_idle;
  Watts switch_power;         ///< all switches, typical draw with passive cables
  Watts transceiver_power;    ///< switch-side optics (node-side optics are inside the node's maximum)
  Watts other_power;          ///< other powered parts (UFM appliances, management servers)
  Watts it_average;           ///< whole cluster over a step
  Watts it_peak;
  Watts it_idle;
  double pue = 1.0;
  Watts facility_average;     ///< it_average x PUE
  Watts facility_peak;        ///< it_peak x PUE
  Time step_time;             ///< step time under the cap
  double compute_slowdown = 1.0;  ///< factor on compute-bound time from the cap
  double step_slowdown = 1.0;     ///< step_time / uncapped step time
  Joules step_energy_it;
  Joules step_energy_facility;
  RackPlan racks;
  std::vector<std::string> warnings;
};

/// The TDP-based curve: compute-bound at TDP, memory-bound and communicating at idle plus their configured share
/// of (TDP - idle), idle at the idle power.
[[nodiscard]] GpuPowerCurve tdp_power_curve(const GpuSpec& gpu, const PowerConfig& config);

/// Clamps `curve` to `cap` and returns the slowdown of compute-bound work: with dynamic power ~ clock^k above
/// idle, clock ratio = ((cap - idle) / (P_compute - idle))^(1/k) and compute time grows by its inverse.
/// Memory-bound and communication states are clamped without slowdown. Throws InputError if cap <= idle.
[[nodiscard]] double apply_power_cap(GpuPowerCurve& curve, Watts cap, double dvfs_exponent);

/// Racks for `nodes` nodes of `node_peak` each and the rack-mounted network parts; adds breaker-trip warnings.
[[nodiscard]] RackPlan plan_racks(const CoolingConfig& cooling, int nodes, int node_rack_units, Watts node_peak,
                                  int network_rack_units, Watts network_peak, std::vector<std::string>& warnings);

[[nodiscard]] PowerReport compute_power(const FacilityConfig& config, const ClusterInventory& inventory,
                                        const RunProfile& run, const PriceBook& book);

}  // namespace cs
