// The cluster the simulator runs on, as one Boost.Graph: GPUs, NVSwitch planes, PCIe switches, root complexes,
// NICs, PCIe devices and fabric switches are vertices; every physical link (or bundle of parallel cables
// between the same two boxes) is one edge with a bandwidth in each direction and a latency. Built from a
// topology file in topologies/ (format: docs/topology.md) by the node and fabric builders.
//
// Each edge carries two directed channels, 2e (from the edge's first end to its second) and 2e+1; a route is
// a list of channel ids, found by a Router (router.hpp). A Topology is immutable once built and holds no
// caches, so any number of threads may simulate over one topology, each with its own Router.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/topology/topology_spec.hpp"

namespace cs {

enum class VertexKind : std::uint8_t { gpu, nvswitch, pcie_switch, root_complex, nic, device, leaf, spine, core, router };
enum class LinkTier : std::uint8_t { nvlink, pcie, pcie_uplink, cpu_link, node_leaf, leaf_spine, spine_core, direct };
inline constexpr int kLinkTierCount = 8;

[[nodiscard]] std::string_view to_string(VertexKind k) noexcept;
[[nodiscard]] std::string_view to_string(LinkTier t) noexcept;

struct VertexInfo {
  VertexKind kind = VertexKind::gpu;
  int node = -1;       ///< owning node, -1 for fabric switches
  int index = 0;       ///< local index inside the node, or switch number within its tier
  int group = 0;       ///< rail (NICs, rail leaves) or pod / plane (spines, cores)
  Time latency;        ///< forwarding latency of a switch or NIC; zero for endpoints
};

struct EdgeInfo {
  LinkTier tier = LinkTier::pcie;
  Bandwidth bandwidth;   ///< payload bandwidth per direction, all parallel cables together
  Time latency;
  int cables = 1;        ///< parallel physical links in this bundle
};

using ClusterGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexInfo,
                                           boost::property<boost::edge_index_t, int>>;
using VertexId = int;
using ChannelId = std::uint32_t;

/// A path as directed channels plus its one-way latency (links, switches and NICs crossed).
struct RouteView {
  std::span<const ChannelId> channels;
  Time latency;
};

/// Part counts for the bill of materials, straight from the builder.
struct SwitchTierCount {
  std::string tier;   ///< "leaf", "spine", "core", "router"
  std::string model;
  int radix = 0;
  int count = 0;
  int ports_used = 0;
};
struct CableTierCount {
  std::string tier;          ///< "node-leaf", "leaf-spine", "spine-core", "direct"
  int cables = 0;
  int node_transceivers = 0;   ///< modules in the nodes (0 for copper)
  int switch_transceivers = 0; ///< modules in the switches (0 for copper)
  bool optical = true;
  Bandwidth speed;             ///< per cable, per direction (raw)
};
struct FabricInventory {
  std::string node_model;
  std::string fabric_kind;
  std::string technology;
  int nodes = 0;
  int gpus = 0;
  int nics = 0;
  int scalable_units = 0;
  std::vector<SwitchTierCount> switches;
  std::vector<CableTierCount> cables;
  [[nodiscard]] int total_switches() const;
  [[nodiscard]] int total_cables() const;
  [[nodiscard]] int total_transceivers() const;
};

class Topology {
 public:
  /// A cluster of `nodes` nodes with no fabric graph beyond what `build()` adds.
  Topology(std::string name, NodeSpec node, int nodes);
  Topology(std::string name, NodeSpec node, FabricSpec fabric, int nodes);
  Topology(const Topology&);
  Topology& operator=(const Topology&);
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;
  ~Topology();

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const NodeSpec& node() const noexcept { return node_; }
  [[nodiscard]] const FabricSpec& fabric() const noexcept { return fabric_; }
  [[nodiscard]] int nodes() const noexcept { return nodes_; }
  [[nodiscard]] int gpu_count() const noexcept { return nodes_ * node_.gpus; }
  [[nodiscard]] int node_of(int gpu) const noexcept { return gpu / node_.gpus; }
  [[nodiscard]] int local_of(int gpu) const noexcept { return gpu % node_.gpus; }

  // ---- The graph ----
  [[nodiscard]] const ClusterGraph& graph() const noexcept { return graph_; }
  [[nodiscard]] int vertex_count() const noexcept { return static_cast<int>(vertices_.size()); }
  [[nodiscard]] int edge_count() const noexcept { return static_cast<int>(edges_.size()); }
  [[nodiscard]] int channel_count() const noexcept { return 2 * edge_count(); }
  [[nodiscard]] const VertexInfo& vertex(VertexId v) const { return vertices_[static_cast<std::size_t>(v)]; }
  [[nodiscard]] const EdgeInfo& edge(int e) const { return edges_[static_cast<std::size_t>(e)]; }
  [[nodiscard]] const EdgeInfo& channel_edge(ChannelId c) const { return edges_[c / 2]; }
  [[nodiscard]] Bandwidth channel_capacity(ChannelId c) const { return edges_[c / 2].bandwidth; }
  /// The two ends of edge `e`.
  [[nodiscard]] std::pair<VertexId, VertexId> ends(int e) const { return ends_[static_cast<std::size_t>(e)]; }
  /// "n3.gpu5->n3.nvswitch", "leaf12->spine3".
  [[nodiscard]] std::string channel_name(ChannelId c) const;
  [[nodiscard]] std::string vertex_name(VertexId v) const;

  [[nodiscard]] VertexId gpu_vertex(int gpu) const;
  [[nodiscard]] VertexId nic_vertex(int node, int nic) const;
  [[nodiscard]] VertexId device_vertex(int node, int device) const;
  [[nodiscard]] VertexId root_complex_vertex(int node, int rc) const;
  [[nodiscard]] VertexId nvswitch_vertex(int node) const;  ///< -1 without a scale-up switch
  /// The NIC (local index) that GPU `local` uses: the one on its PCIe switch, rail-matched.
  [[nodiscard]] int nic_of_local_gpu(int local) const;
  [[nodiscard]] int rail_of_nic(int nic) const;

  /// The channel from `from` to its neighbour `to` (they must share an edge).
  [[nodiscard]] ChannelId channel_between(VertexId from, VertexId to) const;

  // ---- What was built ----
  [[nodiscard]] const FabricInventory& inventory() const noexcept { return inventory_; }
  [[nodiscard]] FabricInventory& inventory() noexcept { return inventory_; }
  /// A human-readable builder report: nodes, switches per tier, cables and transceivers per tier.
  [[nodiscard]] std::string report() const;

  // ---- Building (used by the builders) ----
  VertexId add_vertex(const VertexInfo& v);
  int add_edge(VertexId a, VertexId b, const EdgeInfo& e);
  void set_node_layout(int vertices_per_node, int edges_per_node);
  [[nodiscard]] int vertices_per_node() const noexcept { return vertices_per_node_; }
  [[nodiscard]] int edges_per_node() const noexcept { return edges_per_node_; }

 private:
  std::string name_;
  NodeSpec node_;
  FabricSpec fabric_;
  int nodes_;
  ClusterGraph graph_;
  std::vector<VertexInfo> vertices_;
  std::vector<EdgeInfo> edges_;
  std::vector<std::pair<VertexId, VertexId>> ends_;
  int vertices_per_node_ = 0;
  int edges_per_node_ = 0;
  FabricInventory inventory_;
};

/// Loads `name_or_path` (a file, or topologies/<name>.yaml) for a cluster of `gpus` GPUs and builds its graph.
/// Throws InputError when the file is malformed, a value is impossible, or `gpus` is not a whole number of
/// nodes or does not fit the fabric.
[[nodiscard]] Topology load_topology(const std::string& name_or_path, int gpus);

/// A job on part of one node, down to one GPU: fewer GPUs than a node, dividing it. Such a job runs on one
/// whole node of the topology (power and cost count the node).
[[nodiscard]] bool part_of_one_node(int job_gpus, int node_gpus) noexcept;
/// load_topology for a job of `job_gpus` GPUs, reading the file once: a cluster of that many GPUs, or one whole
/// node when the job is part of one (part_of_one_node).
[[nodiscard]] Topology load_topology_for_job(const std::string& name_or_path, int job_gpus);

/// Builds the graph of a topology from its specs (what load_topology does after parsing).
[[nodiscard]] Topology build_topology(std::string name, NodeSpec node, FabricSpec fabric, int nodes);

}  // namespace cs
