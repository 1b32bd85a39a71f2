// The alpha-beta cost of each collective algorithm on a topology, with no contention between groups: the
// analytic backend's whole model, and the estimate NCCL-like algorithm choice compares (NCCL's tuner picks the
// algorithm with the smallest latency + size / bandwidth; ncclTopoGetAlgoTime).
#pragma once

#include <vector>

#include "sim/collectives/calibration.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/topology/topology.hpp"

namespace cs {

/// How a group of ranks lies on the cluster.
struct GroupShape {
  int ranks = 0;
  int nodes = 0;
  int per_node = 0;        ///< most ranks on one node
  bool uniform = true;     ///< every node holds `per_node` ranks
  LinkClass link_class = LinkClass::network;  ///< nvlink / pcie inside one node, else network
  LinkClass intra_class = LinkClass::nvlink;  ///< the links between ranks of one node
};

[[nodiscard]] GroupShape shape_of(const Topology& t, const std::vector<int>& group);

class CollectiveCost {
 public:
  CollectiveCost(const Topology& topology, const CollectiveCalibration& calibration);

  /// Whether `a` can run `k` on this group and hardware (NVLS needs NVSwitch SHARP, in-network needs SHARP
  /// switches, hierarchical needs several nodes of several ranks each, tree and NVLS are all-reduce only).
  [[nodiscard]] bool supports(CollectiveAlgorithm a, CollectiveKind k, const GroupShape& g) const;
  /// Contention-free time of one group.
  [[nodiscard]] Time estimate(CollectiveAlgorithm a, CollectiveKind k, Bytes s, const GroupShape& g) const;
  /// The tuner: among NCCL's algorithms (ring, tree, NVLS, in-network) that the hardware supports, the one with
  /// the smallest estimate; ring for everything but all-reduce.
  [[nodiscard]] CollectiveAlgorithm choose(CollectiveKind k, Bytes s, const GroupShape& g) const;
  /// Calibrated latency beyond the links': base + steps x (step latency - the path latency the flows already
  /// carry), per link class as NCCL counts them.
  [[nodiscard]] Time protocol_latency(CollectiveAlgorithm a, CollectiveKind k, Bytes s, const GroupShape& g) const;
  [[nodiscard]] double efficiency(CollectiveAlgorithm a, Bytes s, const GroupShape& g) const;

  /// Per-direction payload bandwidth of a GPU's scale-up link (NVLink, else its PCIe link).
  [[nodiscard]] Bandwidth intra_bandwidth() const;
  /// Per-direction payload bandwidth of one NIC port into the fabric.
  [[nodiscard]] Bandwidth nic_bandwidth() const;
  [[nodiscard]] const CollectiveCalibration& calibration() const noexcept { return calib_; }

 private:
  [[nodiscard]] Time path_latency(bool inter) const;
  const Topology& topo_;
  const CollectiveCalibration& calib_;
  Time intra_latency_;  // GPU 0 to GPU 1
  Time inter_latency_;  // GPU 0 to the first GPU of node 1 (intra on one node)
};

}  // namespace cs
