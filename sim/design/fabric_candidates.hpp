// The fabrics `clustersim design` compares for one job and GPU count: every family the topology layer builds,
// sized from the scenario's own node, link and switch, each as a FabricSpec plus the label the report shows.
#pragma once

#include <string>
#include <vector>

#include "sim/topology/topology_spec.hpp"
#include "sim/design/job_traffic.hpp"

namespace cs {

struct FabricCandidate {
  std::string family;          ///< fat-tree, rail-optimized, rail-only, torus, hypercube, dragonfly, ocs
  std::string label;           ///< "fat-tree 3-tier 2:1"
  double oversubscription = 1; ///< leaf down:up ports; 1 for non-blocking and for direct fabrics
  FabricSpec fabric;
};

/// The circuit strides for `ports_pairs` NIC pairs per node: the heaviest strides first; strides that keep
/// the circulant graph connected (gcd with the node count 1) are added when the traffic's own do not.
[[nodiscard]] std::vector<int> choose_ocs_strides(const std::vector<StrideTraffic>& traffic, int port_pairs, int nodes);

/// Every candidate for `nodes` nodes from the scenario's fabric `base` (its link, switches, technology and
/// cable media): fat-trees of 2 and 3 tiers at 1:1, 2:1 and 4:1, rail-optimized and rail-only (1:1), a 2-D
/// torus, a hypercube (power-of-two node counts), a dragonfly and an OCS layer with `ocs_strides`.
[[nodiscard]] std::vector<FabricCandidate> fabric_candidates(const FabricSpec& base, int nodes,
                                                             const std::vector<int>& ocs_strides);

}  // namespace cs
