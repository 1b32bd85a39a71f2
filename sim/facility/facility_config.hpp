// The `facility:` section of a scenario: cooling and racks, GPU power states and cap, reliability, finance,
// which price-book entries to use and per-scenario price overrides. Every key has a default; docs/tco.md lists
// each with its unit, default and source.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/facility/money_units.hpp"
#include "sim/facility/price_book.hpp"

namespace cs {

class InputNode;

enum class Cooling { air, liquid };
enum class Site { colocation, build };

[[nodiscard]] std::string_view to_string(Cooling c) noexcept;
[[nodiscard]] std::string_view to_string(Site s) noexcept;

/// facility.cooling
struct CoolingConfig {
  Cooling kind = Cooling::air;
  double pue = 1.5;                 ///< air 1.5, liquid 1.15 unless given
  Watts rack_power_budget{40800.0}; ///< air 40.8 kW (4 x DGX H100), liquid 120 kW unless given
  int rack_units = 42;              ///< usable units per rack
  int nodes_per_rack = 0;           ///< 0: as many as the power budget and rack units allow
  int racks_per_row = 8;
  std::optional<Watts> row_power_budget;  ///< none: rows are not checked
};

/// facility.power: the TDP-based GPU power curve, server overhead, and an optional per-GPU cap.
struct PowerConfig {
  double memory_bound_load = 0.6;     ///< memory-bound power = idle + this x (TDP - idle)
  double communication_load = 0.3;    ///< communicating power = idle + this x (TDP - idle)
  double server_overhead_load = 1.0;  ///< share of the node's non-GPU maximum drawn while training
  double server_idle_load = 0.3;      ///< share of the node's non-GPU maximum drawn while idle
  std::optional<Watts> gpu_power_cap; ///< none: GPUs run at TDP
  double dvfs_exponent = 3.0;         ///< dynamic power ~ clock^exponent under a cap
};

/// facility.reliability
struct ReliabilityConfig {
  Time gpu_mtbf;       ///< per GPU
  Time node_mtbf;      ///< per node, host hardware other than GPUs
  Time link_mtbf;      ///< per compute-fabric NIC link
  Time software_mtbf;  ///< per node, software and NCCL faults that kill the job
  Time restart_overhead = Time::from_seconds(300.0);  ///< detect, reschedule, re-initialise (without restore)
  double checkpoint_bytes_per_parameter = 14.0;       ///< bf16 weights + fp32 master + Adam m and v
  Bandwidth write_bandwidth_per_node{20e9};
  Bandwidth read_bandwidth_per_node{40e9};
  std::optional<Time> checkpoint_interval;  ///< none: the Daly optimum
  Time repair_time = Time::from_seconds(24 * 3600.0);  ///< a failed node is out of service this long
  std::optional<int> spare_nodes;           ///< none: sized from the failure rate
  double spare_confidence = 0.99;           ///< P(no more nodes down than spares)

  ReliabilityConfig();  ///< defaults from the Llama 3 405B run (docs/tco.md)
};

/// facility.finance. The two lives are written in years in the file (`depreciation_years: 5`).
struct FinanceConfig {
  Time depreciation = years(5.0);    ///< hardware life: the capital charge and the lifetime TCO
  double cost_of_capital = 0.08;     ///< yearly rate
  double residual_value = 0.0;       ///< fraction of hardware capex recovered at the end of life
  Time facility_life = years(15.0);  ///< amortisation of a facility build
  double utilisation = 1.0;          ///< fraction of the year the cluster runs jobs
  double staff_fte = 0.0;            ///< operations staff, full-time equivalents
};

/// facility.prices: which price-book entries stand for each cost.
struct PriceChoice {
  PriceRef electricity{"eia-us-industrial-2025"};
  PriceRef colocation{"cbre-wholesale-colo-2024"};
  PriceRef facility_build{"facility-build-ai-dc"};
  PriceRef node_support{"dgx-h100-support"};
  PriceRef staff{"staff-fte-placeholder"};
  PriceRef rack{"rack-pdu-placeholder"};
  PriceRef optical_cable{"fiber-mpo-placeholder"};        ///< for inventories built from a topology
  PriceRef copper_cable{"dac-copper-placeholder"};
  PriceRef node_transceiver{"osfp-800g-twinport-mm"};
  PriceRef switch_transceiver{"osfp-800g-twinport-sm"};
  PriceRef storage{"storage-parallel-fs"};
  PriceRef cloud_on_demand{"aws-p5-on-demand-2026"};
  PriceRef cloud_reserved{"gcp-a3-cud-3y-2025"};
};

struct FacilityConfig {
  Bytes storage_capacity;  ///< shared file system bought with the cluster; 0: none
  CoolingConfig cooling;
  PowerConfig power;
  Site site = Site::colocation;
  ReliabilityConfig reliability;
  FinanceConfig finance;
  PriceChoice prices;
  std::vector<PriceOverride> price_overrides;
};

/// Reads a `facility:` mapping. Absent keys take their defaults; unknown keys, wrong units and impossible
/// values throw InputError located at the offending key.
[[nodiscard]] FacilityConfig parse_facility_config(const InputNode& section);

}  // namespace cs
