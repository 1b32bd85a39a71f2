#include "sim/facility/facility_config.hpp"

#include "sim/input/input_node.hpp"

namespace cs {
namespace {

// Failure rates of the Llama 3 405B pre-training run (Dubey et al. 2024, Table 5): 16,384 H100 GPUs in 2,048
// nodes over a 54-day snapshot = 1,296 h, that is 21,233,664 GPU-hours and 2,654,208 node-hours.
constexpr double kLlamaGpuHours = 16384.0 * 1296.0;
constexpr double kLlamaNodeHours = 2048.0 * 1296.0;
// GPU: faulty GPU 148 + HBM3 72 + SRAM 19 + GPU system processor 17 + thermal 6 + silent data corruption 6.
constexpr double kLlamaGpuFailures = 268.0;
// Host: unplanned host maintenance 32 + SSD 3 + PSU 3 + chassis 2 + IO board 2 + CPU 2 + DRAM 2.
constexpr double kLlamaNodeFailures = 46.0;
// Network switch and cable 35 + NIC 7, spread over one 400G NIC link per GPU.
constexpr double kLlamaLinkFailures = 42.0;
// Software bug 54 + NCCL watchdog timeout 7.
constexpr double kLlamaSoftwareFailures = 61.0;

Time hours(double h) { return Time::from_seconds(h * 3600.0); }

double in_range(const InputNode& n, double lo, double hi, const char* what) {
  const double v = n.as<double>();
  n.require(v >= lo && v <= hi, std::string(what) + " must lie in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

template <class Q>
Q positive(const InputNode& n) {
  const Q v = n.as<Q>();
  n.require(v > Q{}, "must be positive");
  return v;
}

int whole(const InputNode& n, int lo) {
  const int v = n.as<int>();
  n.require(v >= lo, "must be at least " + std::to_string(lo));
  return v;
}

void read_cooling(const InputNode& m, CoolingConfig& c) {
  if (auto n = m.find("type")) {
    const std::string t = n->as<std::string>();
    if (t == "air") c.kind = Cooling::air;
    else if (t == "liquid") c.kind = Cooling::liquid;
    else n->fail("expected air or liquid, got \"" + t + "\"");
  }
  // Defaults by cooling kind (docs/tco.md): PUE from the aiinframap bands, rack budget from NVIDIA's DGX H100
  // rack (air) and GB200 NVL72 class racks (liquid).
  c.pue = c.kind == Cooling::air ? 1.5 : 1.15;
  c.rack_power_budget = Watts{c.kind == Cooling::air ? 40800.0 : 120000.0};
  if (auto n = m.find("pue")) c.pue = in_range(*n, 1.0, 3.0, "pue");
  if (auto n = m.find("rack_power_budget")) c.rack_power_budget = positive<Watts>(*n);
  if (auto n = m.find("rack_units")) c.rack_units = whole(*n, 1);
  if (auto n = m.find("nodes_per_rack")) c.nodes_per_rack = whole(*n, 1);
  if (auto n = m.find("racks_per_row")) c.racks_per_row = whole(*n, 1);
  if (auto n = m.find("row_power_budget")) c.row_power_budget = positive<Watts>(*n);
  m.finish();
}

void read_power(const InputNode& m, PowerConfig& p) {
  if (auto n = m.find("memory_bound_load")) p.memory_bound_load = in_range(*n, 0.0, 1.0, "memory_bound_load");
  if (auto n = m.find("communication_load")) p.communication_load = in_range(*n, 0.0, 1.0, "communication_load");
  if (auto n = m.find("server_overhead_load")) p.server_overhead_load = in_range(*n, 0.0, 1.0, "server_overhead_load");
  if (auto n = m.find("server_idle_load")) p.server_idle_load = in_range(*n, 0.0, 1.0, "server_idle_load");
  if (p.server_idle_load > p.server_overhead_load) {
    m.at("server_idle_load").fail("server_idle_load exceeds server_overhead_load");
  }
  if (auto n = m.find("gpu_power_cap")) p.gpu_power_cap = positive<Watts>(*n);
  if (auto n = m.find("dvfs_exponent")) p.dvfs_exponent = in_range(*n, 1.0, 4.0, "dvfs_exponent");
  m.finish();
}

void read_reliability(const InputNode& m, ReliabilityConfig& r) {
  if (auto n = m.find("gpu_mtbf")) r.gpu_mtbf = positive<Time>(*n);
  if (auto n = m.find("node_mtbf")) r.node_mtbf = positive<Time>(*n);
  if (auto n = m.find("link_mtbf")) r.link_mtbf = positive<Time>(*n);
  if (auto n = m.find("software_mtbf")) r.software_mtbf = positive<Time>(*n);
  if (auto n = m.find("restart_overhead")) {
    r.restart_overhead = n->as<Time>();
    n->require(r.restart_overhead >= Time::zero(), "must not be negative");
  }
  if (auto n = m.find("checkpoint_bytes_per_parameter")) {
    r.checkpoint_bytes_per_parameter = in_range(*n, 0.5, 64.0, "checkpoint_bytes_per_parameter");
  }
  if (auto n = m.find("write_bandwidth_per_node")) r.write_bandwidth_per_node = positive<Bandwidth>(*n);
  if (auto n = m.find("read_bandwidth_per_node")) r.read_bandwidth_per_node = positive<Bandwidth>(*n);
  if (auto n = m.find("checkpoint_interval")) r.checkpoint_interval = positive<Time>(*n);
  if (auto n = m.find("repair_time")) r.repair_time = positive<Time>(*n);
  if (auto n = m.find("spare_nodes")) r.spare_nodes = whole(*n, 0);
  if (auto n = m.find("spare_confidence")) r.spare_confidence = in_range(*n, 0.5, 0.999999, "spare_confidence");
  m.finish();
}

void read_finance(const InputNode& m, FinanceConfig& f) {
  if (auto n = m.find("depreciation_years")) f.depreciation_years = in_range(*n, 1.0, 30.0, "depreciation_years");
  if (auto n = m.find("cost_of_capital")) f.cost_of_capital = in_range(*n, 0.0, 1.0, "cost_of_capital");
  if (auto n = m.find("residual_value")) f.residual_value = in_range(*n, 0.0, 1.0, "residual_value");
  if (auto n = m.find("facility_life_years")) f.facility_life_years = in_range(*n, 1.0, 60.0, "facility_life_years");
  if (auto n = m.find("utilisation")) {
    f.utilisation = in_range(*n, 0.0, 1.0, "utilisation");
    n->require(f.utilisation > 0.0, "utilisation must be above 0");
  }
  if (auto n = m.find("staff_fte")) f.staff_fte = in_range(*n, 0.0, 1e4, "staff_fte");
  m.finish();
}

void read_price_ref(const InputNode& m, std::string_view key, PriceRef& ref) {
  if (auto n = m.find(key)) ref = PriceRef{n->as<std::string>(), n->location(), n->path()};
}

void read_prices(const InputNode& m, PriceChoice& p) {
  read_price_ref(m, "electricity", p.electricity);
  read_price_ref(m, "colocation", p.colocation);
  read_price_ref(m, "facility_build", p.facility_build);
  read_price_ref(m, "node_support", p.node_support);
  read_price_ref(m, "staff", p.staff);
  read_price_ref(m, "rack", p.rack);
  read_price_ref(m, "optical_cable", p.optical_cable);
  read_price_ref(m, "copper_cable", p.copper_cable);
  read_price_ref(m, "node_transceiver", p.node_transceiver);
  read_price_ref(m, "switch_transceiver", p.switch_transceiver);
  read_price_ref(m, "storage", p.storage);
  read_price_ref(m, "cloud_on_demand", p.cloud_on_demand);
  read_price_ref(m, "cloud_reserved", p.cloud_reserved);
  m.finish();
}

std::vector<PriceOverride> read_overrides(const InputNode& list) {
  std::vector<PriceOverride> out;
  for (const InputNode& e : list.elements()) {
    const InputNode price = e.at("price");
    out.push_back({e.get<std::string>("id"), price.as<std::string>(), price.location(), price.path()});
    try {
      (void)parse_price(out.back().price);
    } catch (const UnitError& err) {
      price.fail(err.what());
    }
    e.finish();
  }
  return out;
}

}  // namespace

std::string_view to_string(Cooling c) noexcept { return c == Cooling::air ? "air" : "liquid"; }
std::string_view to_string(Site s) noexcept { return s == Site::colocation ? "colocation" : "build"; }

ReliabilityConfig::ReliabilityConfig()
    : gpu_mtbf(hours(kLlamaGpuHours / kLlamaGpuFailures)),
      node_mtbf(hours(kLlamaNodeHours / kLlamaNodeFailures)),
      link_mtbf(hours(kLlamaGpuHours / kLlamaLinkFailures)),
      software_mtbf(hours(kLlamaNodeHours / kLlamaSoftwareFailures)) {}

FacilityConfig parse_facility_config(const InputNode& section) {
  FacilityConfig c;
  if (!section.is_map()) section.fail("expected a mapping (the facility section)");
  if (auto n = section.find("storage_capacity")) {
    c.storage_capacity = n->as<Bytes>();
    n->require(c.storage_capacity.value() >= 0, "must not be negative");
  }
  if (auto n = section.find("cooling")) read_cooling(*n, c.cooling);
  if (auto n = section.find("power")) read_power(*n, c.power);
  if (auto n = section.find("site")) {
    const std::string s = n->as<std::string>();
    if (s == "colocation") c.site = Site::colocation;
    else if (s == "build") c.site = Site::build;
    else n->fail("expected colocation or build, got \"" + s + "\"");
  }
  if (auto n = section.find("reliability")) read_reliability(*n, c.reliability);
  if (auto n = section.find("finance")) read_finance(*n, c.finance);
  if (auto n = section.find("prices")) read_prices(*n, c.prices);
  if (auto n = section.find("price_overrides")) c.price_overrides = read_overrides(*n);
  section.finish();
  return c;
}

}  // namespace cs
