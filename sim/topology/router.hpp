// Routes over a Topology, as NCCL moves data: NVLink inside a node when there is one (else the PCIe tree),
// and between nodes the GPU's own NIC over the fabric, with deterministic ECMP among the equal-cost fabric
// paths (a hash of the two ends picks the next hop). When the fabric cannot reach the destination rail
// (rail-only), the data first crosses NVLink to the local GPU on that rail (PXN).
//
// A Router memoises the routes it has computed, so it is per simulation (or per thread): it is not safe to
// share one between threads, while the Topology it reads is. Two routers over one topology give identical
// routes_.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/topology/route_table.hpp"
#include "sim/topology/topology.hpp"

namespace cs {

class Router {
 public:
  /// `topology` must outlive the router.
  explicit Router(const Topology& topology);

  [[nodiscard]] const Topology& topology() const noexcept { return t_; }
  // Returned spans stay valid until the next route call.
  /// GPU to GPU (see the file comment). Throws std::runtime_error if unreachable.
  [[nodiscard]] RouteView route(int src_gpu, int dst_gpu);
  /// GPU `gpu` to the fabric switch its NIC plugs into (`upward`), or back down. Throws without a fabric.
  [[nodiscard]] RouteView route_to_fabric(int gpu, bool upward);
  /// Between two fabric switches over the fabric only (ECMP like GPU routes).
  [[nodiscard]] RouteView route_switches(VertexId from, VertexId to);
  /// Shortest path between any two vertices over all links (for devices: NVMe to host memory, ...).
  [[nodiscard]] RouteView route_vertices(VertexId from, VertexId to);
  /// The leaf switch a NIC plugs into, or -1.
  [[nodiscard]] VertexId attachment_switch(VertexId nic) const;
  /// Hop count of the fabric path between two NICs' switches (0: same switch); -1 if unreachable.
  [[nodiscard]] int fabric_distance(VertexId nic_a, VertexId nic_b);

 private:
  void index_fabric();  // once, in the constructor
  void append_pcie_path(VertexId from, VertexId to, std::vector<ChannelId>& out, Time& latency);
  void append_fabric_path(VertexId nic_from, VertexId nic_to, std::uint64_t hash, std::vector<ChannelId>& out,
                          Time& latency);
  void append_switch_path(VertexId from, VertexId to, std::uint64_t hash, std::vector<ChannelId>& out,
                          Time& latency);
  void append_hop(VertexId from, VertexId to, std::vector<ChannelId>& out, Time& latency);
  [[nodiscard]] const std::vector<std::uint16_t>& fabric_distances_to(VertexId sw);
  [[nodiscard]] RouteView store(std::uint64_t key, const std::vector<ChannelId>& path, Time latency);

  const Topology& t_;
  RouteTable routes_;
  std::vector<ChannelId> pool_;
  // Fabric switches (leaf, spine, core, router) in a compact index space.
  std::vector<int> fabric_index_;        // vertex -> compact index or -1
  std::vector<VertexId> fabric_vertex_;  // compact -> vertex
  std::vector<std::vector<std::pair<int, int>>> fabric_adj_;  // compact -> (compact neighbour, edge)
  std::unordered_map<int, std::vector<std::uint16_t>> distances_;  // target compact -> hop counts
  std::vector<VertexId> nic_switch_;     // vertex -> attached fabric switch, or -1
  // Intra-node PCIe paths on node 0, as (edge, direction) templates keyed by (from local, to local).
  std::unordered_map<std::uint64_t, std::vector<std::pair<int, int>>> pcie_paths_;
  std::vector<ChannelId> scratch_;
};

}  // namespace cs
