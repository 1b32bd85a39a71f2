#include "sim/scenario/facility_link.hpp"

namespace cs {
namespace {

int rack_units_of(const PriceItem& item) {
  if (!item.rack_units) {
    throw InputError(item.where, item.id, "price-book entry needs rack_units to be placed in racks");
  }
  return *item.rack_units;
}

}  // namespace

ClusterInventory make_inventory(const Scenario& sc, const PriceBook& book) {
  const FabricInventory& f = sc.topology.inventory();
  ClusterInventory inv;
  inv.name = sc.topology.name();
  inv.node_count = sc.topology.nodes();
  const PriceItem& node = book.for_model(f.node_model, "node of topology " + sc.topology.name());
  inv.node = NodeKind{.price = node.id,
                      .gpus_per_node = sc.topology.node().gpus,
                      .rack_units = rack_units_of(node),
                      .nics_per_node = inv.node_count > 0 ? f.nics / inv.node_count : 0,
                      .nic_price_id = ""};  // the shipped node entries include their NICs
  for (const SwitchTierCount& s : f.switches) {
    const PriceItem& sw = book.for_model(s.model, s.tier + " switch of topology " + sc.topology.name());
    inv.switches.push_back({"compute", s.tier, sw.id, s.count, rack_units_of(sw)});
  }
  const PriceChoice& p = sc.facility.prices;
  for (const CableTierCount& c : f.cables) {
    inv.cables.push_back({"compute", c.tier, c.optical ? CableMedium::optical : CableMedium::copper,
                          c.optical ? p.optical_cable : p.copper_cable, c.cables});
    if (c.node_transceivers > 0) {
      inv.transceivers.push_back({"compute", c.tier, true, p.node_transceiver, c.node_transceivers});
    }
    if (c.switch_transceivers > 0) {
      inv.transceivers.push_back({"compute", c.tier, false, p.switch_transceiver, c.switch_transceivers});
    }
  }
  inv.storage_capacity = sc.facility.storage_capacity;
  inv.storage_price = p.storage;
  return inv;
}

void require_token_budget(const Scenario& sc) {
  if (!sc.training.token_budget) {
    throw InputError({sc.file, 0, 0}, "training.token_budget",
                     "the cost of a training run needs a token budget (\"token_budget: 300e9\")");
  }
}

bool prices_power_cap(const Scenario& sc) {
  return sc.facility.power.gpu_power_cap.has_value() && sc.profile.fits.power_cap.has_value();
}

RunProfile make_run_profile(const Scenario& sc, const RunResult& r) {
  require_token_budget(sc);
  const StepBreakdown& b = r.step.breakdown;
  RunProfile run;
  run.step_time = r.step.step_time;
  run.fractions = fractions_from_times(b.compute - b.memory_kernels, b.memory_kernels + b.optimizer,
                                       b.tp_comm + b.cp_comm + b.ep_comm + b.dp_comm + b.param_gather, b.pipeline_wait + b.host_wait);
  run.tokens_per_step = r.tokens_per_step;
  run.token_budget = *sc.training.token_budget;
  run.parameter_count = sc.model.total_params();
  run.gpu = sc.profile.gpu;
  run.cap_in_step_time = prices_power_cap(sc);
  return run;
}

TcoReport scenario_tco(const Scenario& sc, const RunResult& r, const PriceBook& book) {
  return compute_tco(sc.facility, make_inventory(sc, book), make_run_profile(sc, r), book);
}

}  // namespace cs
