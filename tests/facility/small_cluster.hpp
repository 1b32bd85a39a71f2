// A cluster small enough to compute by hand: one node of two 500 W GPUs, one switch, two cables, two
// switch-side transceivers, 10 TB of storage, with round prices. Tests state their expected values as
// arithmetic on these numbers.
#pragma once

#include <string>
#include <vector>

#include "sim/facility/cluster_inventory.hpp"
#include "sim/facility/facility_config.hpp"
#include "sim/facility/price_book.hpp"
#include "sim/facility/run_profile.hpp"
#include "sim/facility/tco_model.hpp"
#include "sim/input/input_node.hpp"

namespace cs::test {

inline constexpr const char* kSmallPriceBook = R"(format_version: 1
items:
  - {id: node, name: two-GPU node, price: 100000USD, source: test, date: 2026, quality: E, power_max: 2000W, power_source: test}
  - {id: switch, name: one switch, price: 10000USD, source: test, date: 2026, quality: E, power_typical: 200W, power_source: test}
  - {id: optic, name: transceiver, price: 500USD, source: test, date: 2026, quality: E, power_typical: 10W, power_source: test}
  - {id: cable, name: fibre, price: 100USD, source: test, date: 2026, quality: E}
  - {id: disk, name: storage, price: 100USD/TB, source: test, date: 2026, quality: E}
  - {id: rack, name: rack, price: 1000USD, source: test, date: 2026, quality: E}
  - {id: power, name: electricity, price: 0.10USD/kWh, source: test, date: 2026, quality: E}
  - {id: colo, name: colocation, price: 100USD/kW/month, source: test, date: 2026, quality: E}
  - {id: build, name: construction, price: 10USD/W, source: test, date: 2026, quality: E}
  - {id: support, name: support, price: 1000USD/yr, source: test, date: 2026, quality: E}
  - {id: staff, name: staff, price: 100000USD/yr, source: test, date: 2026, quality: E}
  - {id: od, name: cloud on demand, price: 4USD/h, source: test, date: 2026, quality: E}
  - {id: rsv, name: cloud reserved, price: 2USD/h, source: test, date: 2026, quality: E}
)";

inline PriceBook small_price_book() { return PriceBook::parse(InputNode::parse(kSmallPriceBook, "small.yaml")); }

inline ClusterInventory small_inventory() {
  ClusterInventory inv;
  inv.name = "one node, one switch";
  inv.node_count = 1;
  inv.node = NodeKind{.price = "node", .gpus_per_node = 2, .rack_units = 2, .nics_per_node = 2, .nic_price_id = ""};
  inv.switches.push_back({"compute", "leaf", "switch", 1, 1});
  inv.cables.push_back({"compute", "node-leaf", CableMedium::optical, "cable", 2});
  inv.transceivers.push_back({"compute", "node-leaf", false, "optic", 2});
  inv.storage_capacity = Bytes{10e12};
  inv.storage_price = "disk";
  return inv;
}

/// 1 s steps: half compute-bound, 0.2 memory-bound, 0.2 communicating, 0.1 idle; 1e9 parameters.
inline RunProfile small_run() {
  RunProfile run;
  run.step_time = Time::from_seconds(1.0);
  run.fractions = {.compute = 0.5, .memory = 0.2, .communication = 0.2, .idle = 0.1};
  run.tokens_per_step = 1e6;
  run.token_budget = 1e10;  // 10,000 steps
  run.parameter_count = 1e9;
  run.gpu.name = "test GPU";
  run.gpu.tdp = Watts{500.0};
  run.gpu.idle_power = Watts{100.0};
  return run;
}

/// Round prices and rates; reliability rates chosen so the cluster MTBF is 1 / 0.00325 h.
inline FacilityConfig small_config() {
  FacilityConfig c;
  c.cooling.pue = 1.5;
  c.cooling.rack_power_budget = Watts{5000.0};
  c.reliability.gpu_mtbf = Time::from_seconds(1000.0 * 3600);
  c.reliability.node_mtbf = Time::from_seconds(2000.0 * 3600);
  c.reliability.link_mtbf = Time::from_seconds(4000.0 * 3600);
  c.reliability.software_mtbf = Time::from_seconds(4000.0 * 3600);
  c.reliability.write_bandwidth_per_node = Bandwidth{1e9};
  c.reliability.read_bandwidth_per_node = Bandwidth{2e9};
  c.reliability.spare_nodes = 0;
  c.finance.cost_of_capital = 0.0;
  c.prices = PriceChoice{.electricity = "power", .colocation = "colo", .facility_build = "build",
                         .node_support = "support", .staff = "staff", .rack = "rack", .optical_cable = "cable",
                         .copper_cable = "cable", .node_transceiver = "optic", .switch_transceiver = "optic",
                         .storage = "disk",
                         .cloud_on_demand = "od", .cloud_reserved = "rsv"};
  return c;
}

/// One price override written at s.yaml:`line`:14. (Built member by member: GCC 12 warns, wrongly, about
/// brace-initialised aggregates of strings inside an initializer list.)
inline std::vector<PriceOverride> one_override(std::string id, std::string price, int line) {
  PriceOverride o;
  o.id = std::move(id);
  o.price = std::move(price);
  o.where.file = "s.yaml";
  o.where.line = line;
  o.where.column = 14;
  o.key_path = "facility.price_overrides[0].price";
  std::vector<PriceOverride> out;
  out.push_back(std::move(o));
  return out;
}

/// The TCO of the small cluster under `c`.
inline TcoReport small_tco(const FacilityConfig& c = small_config()) {
  return compute_tco(c, small_inventory(), small_run(), small_price_book());
}

}  // namespace cs::test
