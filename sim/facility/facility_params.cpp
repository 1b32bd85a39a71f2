#include "sim/facility/facility_params.hpp"

#include "sim/facility/price_book.hpp"

namespace cs {

const EnumTable<Cooling>& cooling_names() {
  static const EnumTable<Cooling> t{{Cooling::air, "air"}, {Cooling::liquid, "liquid"}};
  return t;
}

const EnumTable<Site>& site_names() {
  static const EnumTable<Site> t{{Site::colocation, "colocation"}, {Site::build, "build"}};
  return t;
}

namespace {

const ParamTable<CoolingConfig>& cooling_params() {
  static const ParamTable<CoolingConfig> t = [] {
    ParamTable<CoolingConfig> p("cooling", "How the GPU racks are cooled and how densely they are packed.");
    // The type sets the defaults of pue and rack_power_budget (declared after it, so given values win).
    ParamSpec type{.key = "type", .type = ParamType::choice,
                   .help = "cooling of the GPU racks: air, or direct liquid cooling (DLC)", .default_text = "air",
                   .choices = cooling_names().names()};
    type.check = [](const InputNode& n) { (void)param_detail::read_choice(n, cooling_names()); };
    p.custom(std::move(type), [](const InputNode& n, CoolingConfig& c) {
      c.kind = param_detail::read_choice(n, cooling_names());
      // PUE from the aiinframap bands (air 1.4-1.6, liquid 1.10-1.25); rack budget from NVIDIA's DGX H100
      // rack (4 x 10.2 kW, air) and GB200 NVL72 class racks (~120 kW, liquid). docs/tco.md.
      c.pue = c.kind == Cooling::air ? 1.5 : 1.15;
      c.rack_power_budget = Watts{c.kind == Cooling::air ? 40800.0 : 120000.0};
    });
    p.field("pue", &CoolingConfig::pue,
            {.help = "power usage effectiveness, facility power / IT power. Source: aiinframap.com bands "
                     "(air 1.4-1.6, liquid-cooled 1.10-1.25)",
             .min = 1.0, .max = 3.0, .default_text = "1.5 (air), 1.15 (liquid)"});
    p.field("rack_power_budget", &CoolingConfig::rack_power_budget,
            {.help = "peak power one rack may draw. Source: DGX H100 rack 4 x 10.2 kW (air); GB200 NVL72 class "
                     "~120 kW (liquid)",
             .positive = true, .default_text = "40.8kW (air), 120kW (liquid)"});
    p.field("rack_units", &CoolingConfig::rack_units, {.help = "usable units per rack", .min = 1});
    p.field("nodes_per_rack", &CoolingConfig::nodes_per_rack,
            {.help = "force a density (a rack over budget is a warning); 0: as many as power and space allow",
             .min = 0});
    p.field("racks_per_row", &CoolingConfig::racks_per_row,
            {.help = "racks per row (one SU of DGX H100 at 4 per rack is 8 racks)", .min = 1});
    p.field("row_power_budget", &CoolingConfig::row_power_budget,
            {.help = "peak power one row may draw; none: rows are not checked", .positive = true});
    return p;
  }();
  return t;
}

const ParamTable<PowerConfig>& power_params() {
  static const ParamTable<PowerConfig> t = [] {
    ParamTable<PowerConfig> p("power", "GPU and server power states while training and idle.");
    p.field("memory_bound_load", &PowerConfig::memory_bound_load,
            {.help = "memory-bound GPU power = idle + this x (TDP - idle) (assumption)", .min = 0.0, .max = 1.0});
    p.field("communication_load", &PowerConfig::communication_load,
            {.help = "communicating GPU power = idle + this x (TDP - idle) (assumption)", .min = 0.0, .max = 1.0});
    p.field("server_overhead_load", &PowerConfig::server_overhead_load,
            {.help = "share of the node's non-GPU maximum drawn while training (NVIDIA SuperPOD DC design, "
                     "Table 4: DGX H100 runs at or near peak)",
             .min = 0.0, .max = 1.0});
    p.field("server_idle_load", &PowerConfig::server_idle_load,
            {.help = "share of the node's non-GPU maximum drawn while idle (assumption)", .min = 0.0, .max = 1.0});
    p.field("gpu_power_cap", &PowerConfig::gpu_power_cap,
            {.help = "per-GPU board power limit; none: GPUs run at their TDP", .positive = true});
    p.field("dvfs_exponent", &PowerConfig::dvfs_exponent,
            {.help = "dynamic power ~ clock^k under a cap (P ~ C V^2 f with V ~ f)", .min = 1.0, .max = 4.0});
    p.check([](const InputNode& m, PowerConfig& c) {
      if (c.server_idle_load > c.server_overhead_load) {
        (m.has("server_idle_load") ? m.at("server_idle_load") : m).fail("server_idle_load exceeds server_overhead_load");
      }
    });
    return p;
  }();
  return t;
}

const ParamTable<ReliabilityConfig>& reliability_params() {
  static const ParamTable<ReliabilityConfig> t = [] {
    ParamTable<ReliabilityConfig> p("reliability", "Failure rates, checkpointing and spares (docs/tco.md).");
    p.field("gpu_mtbf", &ReliabilityConfig::gpu_mtbf,
            {.help = "mean time between job-killing failures of one GPU. Source: Llama 3 405B, 268 GPU "
                     "interruptions over 21,233,664 GPU-h (Dubey et al. 2024, Table 5)",
             .positive = true});
    p.field("node_mtbf", &ReliabilityConfig::node_mtbf,
            {.help = "the same for one node's host hardware. Source: Llama 3, 46 host interruptions over 2,048 "
                     "nodes x 1,296 h",
             .positive = true});
    p.field("link_mtbf", &ReliabilityConfig::link_mtbf,
            {.help = "the same for one compute-fabric NIC link. Source: Llama 3, 42 switch/cable/NIC "
                     "interruptions over 16,384 links x 1,296 h",
             .positive = true});
    p.field("software_mtbf", &ReliabilityConfig::software_mtbf,
            {.help = "software and NCCL faults, per node. Source: Llama 3, 61 over 2,048 nodes x 1,296 h",
             .positive = true});
    p.field("restart_overhead", &ReliabilityConfig::restart_overhead,
            {.help = "detect, reschedule and re-initialise, excluding the restore (mlsysim default)", .min = 0.0});
    p.field("checkpoint_bytes_per_parameter", &ReliabilityConfig::checkpoint_bytes_per_parameter,
            {.help = "checkpoint bytes per parameter: bf16 weights 2 + fp32 master 4 + Adam m and v 8",
             .min = 0.5, .max = 64.0});
    p.field("write_bandwidth_per_node", &ReliabilityConfig::write_bandwidth_per_node,
            {.help = "checkpoint write bandwidth per node, all nodes in parallel (assumption: half the read)",
             .positive = true});
    p.field("read_bandwidth_per_node", &ReliabilityConfig::read_bandwidth_per_node,
            {.help = "checkpoint restore bandwidth per node (SuperPOD RA: GDS reads over 40 GBps per node)",
             .positive = true});
    p.field("checkpoint_interval", &ReliabilityConfig::checkpoint_interval,
            {.help = "force a checkpoint interval; none: the Daly optimum", .positive = true,
             .default_text = "Daly optimum"});
    p.field("repair_time", &ReliabilityConfig::repair_time,
            {.help = "a node with a hardware fault is out of service this long (assumption)", .positive = true});
    p.field("spare_nodes", &ReliabilityConfig::spare_nodes,
            {.help = "extra nodes bought as hot spares; none: sized from the failure rate", .min = 0,
             .default_text = "from the failure rate"});
    p.field("spare_confidence", &ReliabilityConfig::spare_confidence,
            {.help = "P(nodes awaiting repair <= spares)", .min = 0.5, .max = 0.999999});
    return p;
  }();
  return t;
}

const ParamTable<FinanceConfig>& finance_params() {
  static const ParamTable<FinanceConfig> t = [] {
    ParamTable<FinanceConfig> p("finance", "Depreciation, capital charge and utilisation.");
    p.field_as_number("depreciation_years", &FinanceConfig::depreciation, years, in_years,
            {.help = "hardware life in years for the capital charge and lifetime TCO (Epoch AI: 5 y for 2023+)",
             .min = 1.0, .max = 30.0});
    p.field("cost_of_capital", &FinanceConfig::cost_of_capital,
            {.help = "yearly discount rate of the capital charge (assumption; 0: straight-line)", .min = 0.0,
             .max = 1.0});
    p.field("residual_value", &FinanceConfig::residual_value,
            {.help = "fraction of hardware capex recovered at the end of life (assumption)", .min = 0.0, .max = 1.0});
    p.field_as_number("facility_life_years", &FinanceConfig::facility_life, years, in_years,
            {.help = "amortisation of a facility build, years (assumption)", .min = 1.0, .max = 60.0});
    p.field("utilisation", &FinanceConfig::utilisation,
            {.help = "share of the year the cluster runs jobs", .max = 1.0, .positive = true});
    p.field("staff_fte", &FinanceConfig::staff_fte,
            {.help = "operations staff, full-time equivalents (no sourced ratio found: set it)", .min = 0.0,
             .max = 1e4});
    return p;
  }();
  return t;
}

/// A price-book reference: an entry id, checked against the price book when the scenario loads.
ParamSpec price_ref_spec(std::string key, std::string help) {
  ParamSpec s{.key = std::move(key), .type = ParamType::text, .help = std::move(help)};
  s.check = [](const InputNode& n) { (void)n.as<std::string>(); };
  return s;
}

const ParamTable<PriceChoice>& price_params() {
  static const ParamTable<PriceChoice> t = [] {
    ParamTable<PriceChoice> p("prices", "Which price-book entry (data/pricebook.yaml) prices each cost item.");
    const PriceChoice defaults;
    auto ref = [&](const char* key, PriceRef PriceChoice::*member, const char* help) {
      ParamSpec s = price_ref_spec(key, help);
      s.default_text = (defaults.*member).id;
      p.custom(std::move(s), [member](const InputNode& n, PriceChoice& c) {
        c.*member = PriceRef{n.as<std::string>(), n.location(), n.path()};
      });
    };
    ref("electricity", &PriceChoice::electricity, "energy price (EIA US industrial average 2025)");
    ref("colocation", &PriceChoice::colocation, "colocation rent per kW and month (CBRE H2 2024)");
    ref("facility_build", &PriceChoice::facility_build, "facility build cost per W");
    ref("node_support", &PriceChoice::node_support, "support contract per node and year");
    ref("staff", &PriceChoice::staff, "cost of one FTE per year (placeholder)");
    ref("rack", &PriceChoice::rack, "one rack with PDUs (placeholder)");
    ref("optical_cable", &PriceChoice::optical_cable, "one optical cable, for inventories built from a topology");
    ref("copper_cable", &PriceChoice::copper_cable, "one copper DAC");
    ref("node_transceiver", &PriceChoice::node_transceiver, "one node-side transceiver");
    ref("switch_transceiver", &PriceChoice::switch_transceiver, "one switch-side transceiver");
    ref("storage", &PriceChoice::storage, "shared file system per TB");
    ref("cloud_on_demand", &PriceChoice::cloud_on_demand, "cloud on-demand GPU-hour, for build versus rent");
    ref("cloud_reserved", &PriceChoice::cloud_reserved, "cloud reserved GPU-hour, for build versus rent");
    return p;
  }();
  return t;
}

std::vector<PriceOverride> read_overrides(const InputNode& list) {
  std::vector<PriceOverride> out;
  for (const InputNode& e : list.elements()) {
    e.allow_only({"id", "price"});
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

const ParamTable<FacilityConfig>& facility_params() {
  static const ParamTable<FacilityConfig> t = [] {
    ParamTable<FacilityConfig> p("facility", "Power, cooling, reliability and cost settings (docs/tco.md); every "
                                             "key has a default.");
    p.field("storage_capacity", &FacilityConfig::storage_capacity,
            {.help = "shared file system bought with the cluster; 0: none", .min = 0.0});
    p.section(&FacilityConfig::cooling, cooling_params());
    p.section(&FacilityConfig::power, power_params());
    p.choice("site", &FacilityConfig::site, site_names(),
             {.help = "colocation (rent per kW) or build (facility capex amortised)"});
    p.section(&FacilityConfig::reliability, reliability_params());
    p.section(&FacilityConfig::finance, finance_params());
    p.section(&FacilityConfig::prices, price_params());
    ParamSpec overrides{.key = "price_overrides", .type = ParamType::list,
                        .help = "per-scenario prices: a list of {id: ENTRY, price: \"36000USD\"} replacing the "
                                "price book's figure for that entry",
                        .default_text = "none"};
    overrides.check = [](const InputNode& n) { (void)read_overrides(n); };
    p.custom(std::move(overrides),
             [](const InputNode& n, FacilityConfig& c) { c.price_overrides = read_overrides(n); });
    return p;
  }();
  return t;
}

FacilityConfig parse_facility_config(const InputNode& section) {
  FacilityConfig c;
  facility_params().read(section, c);
  return c;
}

}  // namespace cs
