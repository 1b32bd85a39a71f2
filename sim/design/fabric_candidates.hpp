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

/// Circuits for `ports` NIC ports per node, matched to the job's traffic (TopoOpt's idea, not its algorithm): a
/// ring k - k+1 over all nodes first (2 ports each: every node reaches every other, and the traffic the matrix
/// missed has a path), then one circuit for every pair that talks (heaviest first), then one circuit at a time
/// to the node pair with the most bytes per circuit it already has, while both ends have a free port; ports
/// still free at the end extend the ring. Node pairs, one per circuit.
[[nodiscard]] std::vector<std::pair<int, int>> choose_ocs_circuits(const NodeTraffic& traffic, int ports);

/// Every candidate for `nodes` nodes from the scenario's fabric `base` (its link, switches, technology and
/// cable media): fat-trees of 2 and 3 tiers at 1:1, 2:1 and 4:1, rail-optimized and rail-only (1:1), a 2-D
/// torus, a hypercube (power-of-two node counts), a dragonfly and two OCS layers: circuits at `ocs_strides`
/// (a circulant, as TopoOpt's ring permutations) and the `ocs_circuits` matched to the traffic.
[[nodiscard]] std::vector<FabricCandidate> fabric_candidates(const FabricSpec& base, int nodes,
                                                             const std::vector<int>& ocs_strides,
                                                             const std::vector<std::pair<int, int>>& ocs_circuits);

}  // namespace cs
