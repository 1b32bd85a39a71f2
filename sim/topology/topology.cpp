#include "sim/topology/topology.hpp"

#include <sstream>
#include <stdexcept>

namespace cs {

std::string_view to_string(VertexKind k) noexcept {
  switch (k) {
    case VertexKind::gpu: return "gpu";
    case VertexKind::nvswitch: return "nvswitch";
    case VertexKind::pcie_switch: return "pcie-switch";
    case VertexKind::root_complex: return "root-complex";
    case VertexKind::nic: return "nic";
    case VertexKind::device: return "device";
    case VertexKind::leaf: return "leaf";
    case VertexKind::spine: return "spine";
    case VertexKind::core: return "core";
    case VertexKind::router: return "router";
  }
  return "?";
}

std::string_view to_string(LinkTier t) noexcept {
  switch (t) {
    case LinkTier::nvlink: return "nvlink";
    case LinkTier::pcie: return "pcie";
    case LinkTier::pcie_uplink: return "pcie-uplink";
    case LinkTier::cpu_link: return "cpu-interconnect";
    case LinkTier::node_leaf: return "node-leaf";
    case LinkTier::leaf_spine: return "leaf-spine";
    case LinkTier::spine_core: return "spine-core";
    case LinkTier::direct: return "direct";
  }
  return "?";
}

std::string_view to_string(FabricKind k) noexcept {
  switch (k) {
    case FabricKind::none: return "none";
    case FabricKind::single_switch: return "single_switch";
    case FabricKind::rail_optimized: return "rail_optimized";
    case FabricKind::fat_tree: return "fat_tree";
    case FabricKind::rail_only: return "rail_only";
    case FabricKind::torus: return "torus";
    case FabricKind::hypercube: return "hypercube";
    case FabricKind::dragonfly: return "dragonfly";
    case FabricKind::ocs: return "ocs";
  }
  return "?";
}

int FabricInventory::total_switches() const {
  int n = 0;
  for (const auto& s : switches) n += s.count;
  return n;
}
int FabricInventory::total_cables() const {
  int n = 0;
  for (const auto& c : cables) n += c.cables;
  return n;
}
int FabricInventory::total_transceivers() const {
  int n = 0;
  for (const auto& c : cables) n += c.node_transceivers + c.switch_transceivers;
  return n;
}

Topology::Topology(std::string name, NodeSpec node, int nodes)
    : Topology(std::move(name), std::move(node), FabricSpec{}, nodes) {}

Topology::Topology(std::string name, NodeSpec node, FabricSpec fabric, int nodes)
    : name_(std::move(name)), node_(std::move(node)), fabric_(std::move(fabric)), nodes_(nodes) {}

Topology::Topology(const Topology&) = default;
Topology& Topology::operator=(const Topology&) = default;
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;
Topology::~Topology() = default;

VertexId Topology::add_vertex(const VertexInfo& v) {
  vertices_.push_back(v);
  boost::add_vertex(v, graph_);
  return static_cast<VertexId>(vertices_.size() - 1);
}

int Topology::add_edge(VertexId a, VertexId b, const EdgeInfo& e) {
  const int id = static_cast<int>(edges_.size());
  edges_.push_back(e);
  ends_.emplace_back(a, b);
  boost::add_edge(static_cast<std::size_t>(a), static_cast<std::size_t>(b), id, graph_);
  return id;
}

void Topology::set_node_layout(int vertices_per_node, int edges_per_node) {
  vertices_per_node_ = vertices_per_node;
  edges_per_node_ = edges_per_node;
}

// Node-local vertex layout (node_builder.cpp): gpus, nvswitch (if any), pcie switches, root complexes, nics,
// devices, in that order.
VertexId Topology::gpu_vertex(int gpu) const {
  return node_of(gpu) * vertices_per_node_ + local_of(gpu);
}
VertexId Topology::nvswitch_vertex(int node) const {
  if (node_.scale_up.kind != ScaleUpKind::nvswitch) return -1;
  return node * vertices_per_node_ + node_.gpus;
}
VertexId Topology::root_complex_vertex(int node, int rc) const {
  const int nvs = node_.scale_up.kind == ScaleUpKind::nvswitch ? 1 : 0;
  return node * vertices_per_node_ + node_.gpus + nvs + node_.pcie.switches + rc;
}
VertexId Topology::nic_vertex(int node, int nic) const {
  return root_complex_vertex(node, node_.pcie.root_complexes) + nic;
}
VertexId Topology::device_vertex(int node, int device) const {
  return nic_vertex(node, node_.nic_spec.count) + device;
}

int Topology::nic_of_local_gpu(int local) const {
  if (node_.nic_spec.count == 0) return -1;
  return local * node_.nic_spec.count / node_.gpus;
}
int Topology::rail_of_nic(int nic) const {
  const auto& r = node_.nic_spec.rails;
  return nic < static_cast<int>(r.size()) ? r[static_cast<std::size_t>(nic)] : nic;
}

std::string Topology::vertex_name(VertexId v) const {
  const VertexInfo& info = vertex(v);
  std::string out;
  if (info.node >= 0) {
    out.append("n").append(std::to_string(info.node)).append(".");
  }
  out.append(to_string(info.kind));
  if (info.kind != VertexKind::nvswitch) out += std::to_string(info.index);
  return out;
}

std::string Topology::channel_name(ChannelId c) const {
  const auto [a, b] = ends(static_cast<int>(c / 2));
  return (c % 2 == 0) ? vertex_name(a) + "->" + vertex_name(b) : vertex_name(b) + "->" + vertex_name(a);
}

ChannelId Topology::channel_between(VertexId from, VertexId to) const {
  for (auto [it, end] = boost::out_edges(static_cast<std::size_t>(from), graph_); it != end; ++it) {
    if (static_cast<VertexId>(boost::target(*it, graph_)) != to) continue;
    const int e = boost::get(boost::edge_index, graph_, *it);
    return static_cast<ChannelId>(2 * e + (ends(e).first == from ? 0 : 1));
  }
  throw std::logic_error("no link between " + vertex_name(from) + " and " + vertex_name(to));
}


std::string Topology::report() const {
  std::ostringstream out;
  const FabricInventory& inv = inventory_;
  out << name_ << "\n";
  out << "  nodes: " << inv.nodes << " x " << node_.name << " (" << node_.gpus << " GPUs, " << node_.nic_spec.count
      << " NICs each)\n";
  out << "  GPUs: " << inv.gpus << ", NICs: " << inv.nics;
  if (inv.scalable_units > 0) out << ", scalable units: " << inv.scalable_units;
  out << "\n  fabric: " << inv.fabric_kind;
  if (!inv.technology.empty()) out << " (" << inv.technology << ")";
  out << "\n";
  for (const auto& s : inv.switches) {
    out << "  switches " << s.tier << ": " << s.count << " x " << s.model << " (radix " << s.radix << ", "
        << s.ports_used << " ports used)\n";
  }
  for (const auto& c : inv.cables) {
    out << "  cables " << c.tier << ": " << c.cables << " " << (c.optical ? "optical" : "copper") << " at "
        << to_string(c.speed) << ", transceivers: " << c.node_transceivers << " in nodes + "
        << c.switch_transceivers << " in switches\n";
  }
  out << "  totals: " << inv.total_switches() << " switches, " << inv.total_cables() << " cables, "
      << inv.total_transceivers() << " transceivers\n";
  out << "  graph: " << vertex_count() << " vertices, " << edge_count() << " links\n";
  return out.str();
}

}  // namespace cs
