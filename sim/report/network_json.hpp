// The `network` section of the JSON result and the fabric's part counts, written from the typed reports of
// the network and topology layers.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/collectives/network_report.hpp"
#include "sim/topology/topology.hpp"

namespace cs {

/// {"backend", "description", "algorithm_overrides", "calibration", "algorithms_used", "links"}; "links" is
/// {"by_tier": [...], "top_links": [...], "channels_used", "flows_started", "solves", "largest_component_flows"}
/// or null for a model without links. Keys in alphabetical order, as the golden files hold them.
[[nodiscard]] nlohmann::json network_json(const NetworkReport& report);
[[nodiscard]] nlohmann::json link_report_json(const LinkReport& links);

/// The builder's part counts (nodes, GPUs, NICs, switches per tier, cables and transceivers per tier).
[[nodiscard]] nlohmann::json fabric_inventory_json(const FabricInventory& inventory);

}  // namespace cs
