// The cluster the simulator runs on: what one node holds and how nodes are connected, as read from a
// topology file in topologies/ (format: docs/topology.md).
//
// This first version knows what the analytic collective model needs (per-GPU NVLink and NIC bandwidths and
// latencies); the fabric graph, routing and part counts are built on top of the same description.
#pragma once

#include <string>

#include "sim/core/units.hpp"

namespace cs {

/// A point-to-point connection: bandwidth in each direction and one-way latency.
struct LinkSpec {
  Bandwidth bandwidth;
  Time latency;
};

struct NodeSpec {
  std::string name;     ///< e.g. "DGX H100"
  int gpus = 8;
  LinkSpec gpu_link;    ///< each GPU's scale-up link (NVLink to NVSwitch, or PCIe), per direction
  int nics = 8;         ///< scale-out NICs per node, one per rail
  LinkSpec nic;         ///< each NIC, per direction
};

class Topology {
 public:
  Topology(std::string name, NodeSpec node, int nodes) : name_(std::move(name)), node_(std::move(node)), nodes_(nodes) {}

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const NodeSpec& node() const noexcept { return node_; }
  [[nodiscard]] int nodes() const noexcept { return nodes_; }
  [[nodiscard]] int gpu_count() const noexcept { return nodes_ * node_.gpus; }
  [[nodiscard]] int node_of(int gpu) const noexcept { return gpu / node_.gpus; }

 private:
  std::string name_;
  NodeSpec node_;
  int nodes_;
};

/// Loads `name_or_path` (a file, or topologies/<name>.yaml) for a cluster of `gpus` GPUs. Throws InputError
/// when the file is malformed or `gpus` is not a whole number of nodes.
[[nodiscard]] Topology load_topology(const std::string& name_or_path, int gpus);

}  // namespace cs
