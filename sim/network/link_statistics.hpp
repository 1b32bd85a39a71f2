// Per-link statistics of a FlowNetwork, summarised for the `network` section of the JSON result: totals per
// link tier (NVLink, PCIe, node-leaf, leaf-spine, ...) and the busiest links.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/network/flow_network.hpp"

namespace cs {

/// {"by_tier": [{tier, channels_used, bytes, busy_s_max, busy_s_mean, peak_flows}], "top_links": [...]}.
/// `elapsed` (the simulated span) turns busy time into utilisation; `top_n` limits the busiest-link list.
[[nodiscard]] nlohmann::json link_statistics_json(const FlowNetwork& net, Time elapsed, int top_n = 10);

}  // namespace cs
