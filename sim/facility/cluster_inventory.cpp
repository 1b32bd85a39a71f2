#include "sim/facility/cluster_inventory.hpp"

namespace cs {
namespace {

void require_count(bool ok, const std::string& what) {
  if (!ok) throw InputError({}, "inventory", what);
}

}  // namespace

void validate(const ClusterInventory& inv) {
  require_count(inv.node_count > 0, "a cluster needs at least one node");
  require_count(inv.node.gpus_per_node > 0, "gpus_per_node must be positive");
  require_count(inv.node.rack_units > 0, "a node must take at least one rack unit");
  require_count(inv.node.nics_per_node >= 0, "nics_per_node must not be negative");
  for (const auto& s : inv.switches) require_count(s.count >= 0 && s.rack_units > 0, "bad switch group " + s.fabric + "/" + s.tier);
  for (const auto& c : inv.cables) require_count(c.count >= 0, "negative cable count in " + c.fabric + "/" + c.span);
  for (const auto& t : inv.transceivers) require_count(t.count >= 0, "negative transceiver count in " + t.fabric);
  for (const auto& o : inv.other) require_count(o.count >= 0 && o.rack_units >= 0, "bad count for " + o.model.id);
  require_count(inv.storage_capacity.value() >= 0, "storage capacity must not be negative");
}

}  // namespace cs
