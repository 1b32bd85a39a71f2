// Test fixture only: the compute fabric of an NVIDIA DGX SuperPOD with DGX H100 (RA-11333-001 V11), 1 to 4
// scalable units, built from the reference architecture's rules so that tests can check the facility layer
// against the published counts. The product path fills ClusterInventory from the topology layer instead.
#pragma once

#include <stdexcept>

#include "sim/core/units.hpp"
#include "sim/facility/cluster_inventory.hpp"

namespace cs::test {

/// `su` scalable units of 32 DGX H100 each, one node's fabric ports taken by the UFM appliances (Table 4).
inline ClusterInventory superpod_h100(int su) {
  if (su < 1 || su > 4) throw std::invalid_argument("the H100 SuperPOD RA tabulates 1 to 4 SU (two tiers)");
  ClusterInventory inv;
  inv.name = "DGX SuperPOD H100, " + std::to_string(su) + " SU";
  inv.node_count = 32 * su - 1;
  inv.node = NodeKind{.price = "dgx-h100", .gpus_per_node = 8, .rack_units = 8, .nics_per_node = 8, .nic_price_id = ""};
  // Rail-optimised: 8 leaves per SU (one per rail), each 32 ports down and 32 up. Spines: 4 per SU up to 2 SU,
  // 16 for 3 and 4 SU (Table 4 keeps the spine count of the full 4-SU build at 3 SU).
  const int leaves = 8 * su;
  const int spines = su <= 2 ? 4 * su : 16;
  inv.switches.push_back({"compute", "leaf", "qm9700", leaves, 1});
  inv.switches.push_back({"compute", "spine", "qm9700", spines, 1});
  // Node-leaf: 8 per node plus 4 UFM links; leaf-spine: 32 per leaf (Table 4: 1,020 and 1,024 at 4 SU).
  const int node_leaf = 8 * inv.node_count + 4;
  const int leaf_spine = 32 * leaves;
  inv.cables.push_back({"compute", "node-leaf", CableMedium::optical, "fiber-mpo-placeholder", node_leaf});
  inv.cables.push_back({"compute", "leaf-spine", CableMedium::optical, "fiber-mpo-placeholder", leaf_spine});
  // Twin-port 800G OSFP modules: 2 ports per cage. Switch side: every leaf cage (32) and the spine cages that
  // take the leaf uplinks (leaf_spine / 2) -> 1,536 at 4 SU; node side 4 per DGX -> 508 (Appendix, Table 8).
  inv.transceivers.push_back({"compute", "all tiers", false, "osfp-800g-twinport-sm", 32 * leaves + leaf_spine / 2});
  inv.transceivers.push_back({"compute", "node-leaf", true, "osfp-800g-twinport-mm", 4 * inv.node_count});
  // Table 7: 4 UFM appliances and 5 management servers for the 4-SU build.
  inv.other.push_back({"management", "ufm-appliance-placeholder", 4, 1});
  inv.other.push_back({"management", "mgmt-server-placeholder", 5, 1});
  inv.storage_capacity = Bytes{1e15};  // a test input: 1 PB of shared storage (the RA sizes storage by bandwidth)
  inv.storage_price = "storage-parallel-fs";
  return inv;
}

}  // namespace cs::test
