// Rail-only (Wang et al. 2023) against rail-optimized: network capex and switch power of both fabrics for HB
// domains (GPUs joined by NVLink) of 8 to 256 GPUs and clusters of 4,096 to 32,768 GPUs, one 400G NIC per GPU on
// 64-port QM9700 switches, priced as `clustersim design` prices them (docs/validation.md, "Fabric design").
#include <cstdio>
#include <numeric>

#include "sim/design/fabric_design.hpp"
#include "sim/facility/bill_of_materials.hpp"
#include "sim/scenario/scenario.hpp"

int main() {
  using namespace cs;
  Scenario sc = load_scenario(std::string(CS_SOURCE_DIR) + "/scenarios/gpt3-175b-1024xh100.yaml");
  const PriceBook book = PriceBook::load_default();
  const NodeSpec dgx = sc.topology.node();
  const FabricSpec base = sc.topology.fabric();
  std::printf("| HB domain (GPUs) | cluster GPUs | rail-optimized network capex | tiers | rail-only network capex | tiers | saving | switch power saving |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (int hb : {8, 16, 32, 64, 128, 256}) {
    NodeSpec node = dgx;
    node.gpus = hb;
    node.nics = hb;
    node.nic_spec.count = hb;
    node.nic_spec.rails.resize(static_cast<std::size_t>(hb));
    std::iota(node.nic_spec.rails.begin(), node.nic_spec.rails.end(), 0);
    node.devices.clear();
    for (int gpus : {4096, 32768}) {
      double capex[2] = {0, 0}, power[2] = {0, 0};
      int tiers[2] = {0, 0};
      bool ok = true;
      for (int k = 0; k < 2; ++k) {
        FabricSpec f = base;
        f.kind = k == 0 ? FabricKind::rail_optimized : FabricKind::rail_only;
        try {
          sc.topology = build_topology("hb", node, f, gpus / hb);
        } catch (const InputError& e) {
          std::printf("| %d | %d | %s |\n", hb, gpus, e.what());
          ok = false;
          break;
        }
        const ClusterInventory inv = design_inventory(sc, book);
        const BillOfMaterials bom = build_bom(inv, RackPlan{}, 0, "rack-pdu-placeholder", book);
        capex[k] = bom.total("network").value();
        for (const auto& s : inv.switches) power[k] += s.count * book.power(s.model, false).value();
        for (const auto& s : sc.topology.inventory().switches) tiers[k] += s.count > 0;
      }
      if (!ok) continue;
      std::printf("| %d | %d | %.2f M USD | %d | %.2f M USD | %d | %.0f%% | %.0f%% |\n", hb, gpus, capex[0] / 1e6, tiers[0],
                  capex[1] / 1e6, tiers[1], 100.0 * (1.0 - capex[1] / capex[0]), 100.0 * (1.0 - power[1] / power[0]));
    }
  }
  return 0;
}
