#include "sim/topology/topology.hpp"

#include <boost/graph/breadth_first_search.hpp>
#include <deque>
#include <limits>
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

namespace {
constexpr std::uint16_t kUnreached = std::numeric_limits<std::uint16_t>::max();

std::uint64_t mix(std::uint64_t x) noexcept {  // splitmix64 finaliser: a fixed, portable hash
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

/// Route cache and the compact fabric graph used for ECMP routing, built on first use.
struct Topology::Cache {
  std::unordered_map<std::uint64_t, RouteEntry> routes;
  std::vector<ChannelId> pool;
  // Fabric switches (leaf, spine, core, router) in a compact index space.
  bool fabric_ready = false;
  std::vector<int> fabric_index;        // vertex -> compact index or -1
  std::vector<VertexId> fabric_vertex;  // compact -> vertex
  std::vector<std::vector<std::pair<int, int>>> fabric_adj;  // compact -> (compact neighbour, edge)
  std::unordered_map<int, std::vector<std::uint16_t>> distances;  // target compact -> hop counts
  std::vector<VertexId> nic_switch;     // vertex -> attached fabric switch, or -1
  // Intra-node PCIe paths on node 0, as (edge, direction) templates keyed by (from local, to local).
  std::unordered_map<std::uint64_t, std::vector<std::pair<int, int>>> pcie_paths;
  std::vector<ChannelId> scratch;
};

Topology::Topology(std::string name, NodeSpec node, int nodes)
    : Topology(std::move(name), std::move(node), FabricSpec{}, nodes) {}

Topology::Topology(std::string name, NodeSpec node, FabricSpec fabric, int nodes)
    : name_(std::move(name)), node_(std::move(node)), fabric_(std::move(fabric)), nodes_(nodes),
      cache_(std::make_unique<Cache>()) {}

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

void Topology::append_hop(VertexId from, VertexId to, std::vector<ChannelId>& out, Time& latency) const {
  const ChannelId c = channel_between(from, to);
  out.push_back(c);
  latency += channel_edge(c).latency + vertex(to).latency;
}

RouteView Topology::store(std::uint64_t key, const std::vector<ChannelId>& path, Time latency) const {
  RouteEntry e{static_cast<std::uint32_t>(cache_->pool.size()), static_cast<std::uint32_t>(path.size()), latency};
  cache_->pool.insert(cache_->pool.end(), path.begin(), path.end());
  cache_->routes.emplace(key, e);
  return RouteView{std::span<const ChannelId>(cache_->pool.data() + e.offset, e.length), latency};
}

// PCIe paths inside one node: a BFS over node 0's PCIe links, cached as a template and shifted to `node`.
void Topology::append_pcie_path(VertexId from, VertexId to, std::vector<ChannelId>& out, Time& latency) const {
  if (from == to) return;
  const int node = vertex(from).node;
  const int vbase = node * vertices_per_node_;
  const int ebase = node * edges_per_node_;
  const int lf = from - vbase, lt = to - vbase;
  const std::uint64_t key = (static_cast<std::uint64_t>(lf) << 32) | static_cast<std::uint32_t>(lt);
  auto it = cache_->pcie_paths.find(key);
  if (it == cache_->pcie_paths.end()) {
    std::vector<int> prev_edge(static_cast<std::size_t>(vertices_per_node_), -1);
    std::vector<char> seen(static_cast<std::size_t>(vertices_per_node_), 0);
    std::deque<int> queue{lf};
    seen[static_cast<std::size_t>(lf)] = 1;
    while (!queue.empty() && !seen[static_cast<std::size_t>(lt)]) {
      const int u = queue.front();
      queue.pop_front();
      for (auto [ei, ee] = boost::out_edges(static_cast<std::size_t>(u), graph_); ei != ee; ++ei) {
        const int e = boost::get(boost::edge_index, graph_, *ei);
        const LinkTier t = edge(e).tier;
        if (t != LinkTier::pcie && t != LinkTier::pcie_uplink && t != LinkTier::cpu_link) continue;
        const int w = static_cast<int>(boost::target(*ei, graph_));
        if (w >= vertices_per_node_ || seen[static_cast<std::size_t>(w)]) continue;
        seen[static_cast<std::size_t>(w)] = 1;
        prev_edge[static_cast<std::size_t>(w)] = e;
        queue.push_back(w);
      }
    }
    if (!seen[static_cast<std::size_t>(lt)]) {
      throw std::runtime_error("no PCIe path from " + vertex_name(from) + " to " + vertex_name(to));
    }
    std::vector<std::pair<int, int>> path;
    for (int v = lt; v != lf;) {
      const int e = prev_edge[static_cast<std::size_t>(v)];
      const auto [a, b] = ends(e);
      const int u = (a == v) ? b : a;
      path.emplace_back(e, a == u ? 0 : 1);
      v = u;
    }
    it = cache_->pcie_paths.emplace(key, std::vector<std::pair<int, int>>(path.rbegin(), path.rend())).first;
  }
  for (const auto& [e, dir] : it->second) {
    const int ge = e + ebase;
    out.push_back(static_cast<ChannelId>(2 * ge + dir));
    const VertexId next = dir == 0 ? ends(ge).second : ends(ge).first;
    latency += edge(ge).latency + vertex(next).latency;
  }
}

void Topology::ensure_fabric() const {
  Cache& c = *cache_;
  if (!c.fabric_ready) {
    c.fabric_index.assign(vertices_.size(), -1);
    c.nic_switch.assign(vertices_.size(), -1);
    for (std::size_t v = 0; v < vertices_.size(); ++v) {
      const VertexKind k = vertices_[v].kind;
      if (k == VertexKind::leaf || k == VertexKind::spine || k == VertexKind::core || k == VertexKind::router) {
        c.fabric_index[v] = static_cast<int>(c.fabric_vertex.size());
        c.fabric_vertex.push_back(static_cast<VertexId>(v));
      }
    }
    c.fabric_adj.resize(c.fabric_vertex.size());
    for (std::size_t e = 0; e < edges_.size(); ++e) {
      const auto [a, b] = ends_[e];
      const int fa = c.fabric_index[static_cast<std::size_t>(a)], fb = c.fabric_index[static_cast<std::size_t>(b)];
      if (fa >= 0 && fb >= 0) {
        c.fabric_adj[static_cast<std::size_t>(fa)].emplace_back(fb, static_cast<int>(e));
        c.fabric_adj[static_cast<std::size_t>(fb)].emplace_back(fa, static_cast<int>(e));
      } else if (fa >= 0 && vertices_[static_cast<std::size_t>(b)].kind == VertexKind::nic) {
        c.nic_switch[static_cast<std::size_t>(b)] = a;
      } else if (fb >= 0 && vertices_[static_cast<std::size_t>(a)].kind == VertexKind::nic) {
        c.nic_switch[static_cast<std::size_t>(a)] = b;
      }
    }
    c.fabric_ready = true;
  }
}

const std::vector<std::uint16_t>& Topology::fabric_distances_to(VertexId sw) const {
  ensure_fabric();
  Cache& c = *cache_;
  const int target = c.fabric_index[static_cast<std::size_t>(sw)];
  auto it = c.distances.find(target);
  if (it != c.distances.end()) return it->second;
  std::vector<std::uint16_t> dist(c.fabric_vertex.size(), kUnreached);
  std::deque<int> queue{target};
  dist[static_cast<std::size_t>(target)] = 0;
  while (!queue.empty()) {
    const int u = queue.front();
    queue.pop_front();
    for (const auto& [w, e] : c.fabric_adj[static_cast<std::size_t>(u)]) {
      if (dist[static_cast<std::size_t>(w)] != kUnreached) continue;
      dist[static_cast<std::size_t>(w)] = static_cast<std::uint16_t>(dist[static_cast<std::size_t>(u)] + 1);
      queue.push_back(w);
    }
  }
  return c.distances.emplace(target, std::move(dist)).first->second;
}

VertexId Topology::attachment_switch(VertexId nic) const {
  ensure_fabric();
  return cache_->nic_switch[static_cast<std::size_t>(nic)];
}


int Topology::fabric_distance(VertexId nic_a, VertexId nic_b) const {
  const VertexId sa = attachment_switch(nic_a), sb = attachment_switch(nic_b);
  if (sa < 0 || sb < 0) return -1;
  if (sa == sb) return 0;
  const auto& dist = fabric_distances_to(sb);
  const std::uint16_t d = dist[static_cast<std::size_t>(cache_->fabric_index[static_cast<std::size_t>(sa)])];
  return d == kUnreached ? -1 : d;
}

// NIC -> its switch -> ... -> the destination NIC's switch -> NIC. At each switch the next hop is one of the
// neighbours one step closer to the destination; which one is a fixed hash of (flow ends, hop), so the same
// pair always takes the same path and different pairs spread evenly (deterministic ECMP).
void Topology::append_fabric_path(VertexId nic_from, VertexId nic_to, std::uint64_t hash,
                                  std::vector<ChannelId>& out, Time& latency) const {
  const VertexId sa = attachment_switch(nic_from), sb = attachment_switch(nic_to);
  append_hop(nic_from, sa, out, latency);
  append_switch_path(sa, sb, hash, out, latency);
  append_hop(sb, nic_to, out, latency);
}

void Topology::append_switch_path(VertexId sa, VertexId sb, std::uint64_t hash, std::vector<ChannelId>& out,
                                  Time& latency) const {
  const Cache& c = *cache_;
  if (sa != sb) {
    const auto& dist = fabric_distances_to(sb);
    int u = c.fabric_index[static_cast<std::size_t>(sa)];
    if (dist[static_cast<std::size_t>(u)] == kUnreached) {
      throw std::runtime_error("no fabric path from " + vertex_name(sa) + " to " + vertex_name(sb));
    }
    for (int hop = 0; dist[static_cast<std::size_t>(u)] != 0; ++hop) {
      const std::uint16_t want = static_cast<std::uint16_t>(dist[static_cast<std::size_t>(u)] - 1);
      int candidates = 0;
      for (const auto& [w, e] : c.fabric_adj[static_cast<std::size_t>(u)]) candidates += dist[static_cast<std::size_t>(w)] == want;
      int pick = static_cast<int>(mix(hash + static_cast<std::uint64_t>(hop) * 0x632be59bd9b4e019ULL) %
                                  static_cast<std::uint64_t>(candidates));
      for (const auto& [w, e] : c.fabric_adj[static_cast<std::size_t>(u)]) {
        if (dist[static_cast<std::size_t>(w)] != want || pick-- != 0) continue;
        const VertexId from = c.fabric_vertex[static_cast<std::size_t>(u)];
        const VertexId to = c.fabric_vertex[static_cast<std::size_t>(w)];
        out.push_back(static_cast<ChannelId>(2 * e + (ends(e).first == from ? 0 : 1)));
        latency += edge(e).latency + vertex(to).latency;
        u = w;
        break;
      }
    }
  }
}

RouteView Topology::route_switches(VertexId from, VertexId to) const {
  const std::uint64_t key = (3ULL << 62) | (static_cast<std::uint64_t>(from) << 31) | static_cast<std::uint32_t>(to);
  if (auto it = cache_->routes.find(key); it != cache_->routes.end()) {
    const RouteEntry& e = it->second;
    return RouteView{std::span<const ChannelId>(cache_->pool.data() + e.offset, e.length), e.latency};
  }
  ensure_fabric();
  if (cache_->fabric_index[static_cast<std::size_t>(from)] < 0 || cache_->fabric_index[static_cast<std::size_t>(to)] < 0) {
    throw std::logic_error("route_switches: " + vertex_name(from) + " or " + vertex_name(to) + " is not a fabric switch");
  }
  std::vector<ChannelId>& path = cache_->scratch;
  path.clear();
  Time latency = Time::zero();
  append_switch_path(from, to, mix(key), path, latency);
  return store(key, path, latency);
}

RouteView Topology::route(int src, int dst) const {
  if (src < 0 || dst < 0 || src >= gpu_count() || dst >= gpu_count()) {
    throw std::out_of_range("GPU rank out of range: " + std::to_string(src) + " -> " + std::to_string(dst));
  }
  const std::uint64_t key = (static_cast<std::uint64_t>(src) << 32) | static_cast<std::uint32_t>(dst);
  if (auto it = cache_->routes.find(key); it != cache_->routes.end()) {
    const RouteEntry& e = it->second;
    return RouteView{std::span<const ChannelId>(cache_->pool.data() + e.offset, e.length), e.latency};
  }
  std::vector<ChannelId>& path = cache_->scratch;
  path.clear();
  Time latency = Time::zero();
  const VertexId gs = gpu_vertex(src), gd = gpu_vertex(dst);
  const int ns = node_of(src), nd = node_of(dst);
  if (src == dst) return store(key, path, latency);
  if (ns == nd) {
    if (node_.scale_up.kind == ScaleUpKind::nvswitch) {
      append_hop(gs, nvswitch_vertex(ns), path, latency);
      append_hop(nvswitch_vertex(ns), gd, path, latency);
    } else {
      append_pcie_path(gs, gd, path, latency);
    }
    return store(key, path, latency);
  }
  if (node_.nic_spec.count == 0) {
    throw std::runtime_error("GPU " + std::to_string(src) + " and GPU " + std::to_string(dst) +
                             " are on different nodes but the node has no NIC");
  }
  const VertexId nic_d = nic_vertex(nd, nic_of_local_gpu(local_of(dst)));
  int nic_s_local = nic_of_local_gpu(local_of(src));
  VertexId via_gpu = gs;
  if (fabric_distance(nic_vertex(ns, nic_s_local), nic_d) < 0) {
    // PXN: forward over NVLink to the local GPU whose NIC reaches the destination (rail-only fabrics).
    nic_s_local = -1;
    for (int g = 0; g < node_.gpus && nic_s_local < 0; ++g) {
      const int n = nic_of_local_gpu(g);
      if (fabric_distance(nic_vertex(ns, n), nic_d) >= 0) {
        nic_s_local = n;
        via_gpu = gpu_vertex(ns * node_.gpus + g);
      }
    }
    if (nic_s_local < 0) {
      throw std::runtime_error("no fabric path from node " + std::to_string(ns) + " to " + vertex_name(nic_d));
    }
    if (node_.scale_up.kind == ScaleUpKind::nvswitch) {
      append_hop(gs, nvswitch_vertex(ns), path, latency);
      append_hop(nvswitch_vertex(ns), via_gpu, path, latency);
    } else {
      append_pcie_path(gs, via_gpu, path, latency);
    }
  }
  const VertexId nic_s = nic_vertex(ns, nic_s_local);
  append_pcie_path(via_gpu, nic_s, path, latency);
  latency += vertex(nic_s).latency;
  append_fabric_path(nic_s, nic_d, mix(key), path, latency);
  append_pcie_path(nic_d, gd, path, latency);
  return store(key, path, latency);
}

RouteView Topology::route_to_fabric(int gpu, bool upward) const {
  const std::uint64_t key = (1ULL << 62) | (static_cast<std::uint64_t>(gpu) << 1) | (upward ? 1U : 0U);
  if (auto it = cache_->routes.find(key); it != cache_->routes.end()) {
    const RouteEntry& e = it->second;
    return RouteView{std::span<const ChannelId>(cache_->pool.data() + e.offset, e.length), e.latency};
  }
  const int node = node_of(gpu);
  const int nic_local = nic_of_local_gpu(local_of(gpu));
  if (nic_local < 0) throw std::runtime_error("GPU " + std::to_string(gpu) + " has no NIC");
  const VertexId nic = nic_vertex(node, nic_local);
  const VertexId sw = attachment_switch(nic);
  if (sw < 0) throw std::runtime_error(vertex_name(nic) + " is not attached to a fabric switch");
  std::vector<ChannelId>& path = cache_->scratch;
  path.clear();
  Time latency = Time::zero();
  if (upward) {
    append_pcie_path(gpu_vertex(gpu), nic, path, latency);
    latency += vertex(nic).latency;
    append_hop(nic, sw, path, latency);
  } else {
    append_hop(sw, nic, path, latency);
    append_pcie_path(nic, gpu_vertex(gpu), path, latency);
  }
  return store(key, path, latency);
}

RouteView Topology::route_vertices(VertexId from, VertexId to) const {
  const std::uint64_t key = (1ULL << 63) | (static_cast<std::uint64_t>(from) << 32) | static_cast<std::uint32_t>(to);
  if (auto it = cache_->routes.find(key); it != cache_->routes.end()) {
    const RouteEntry& e = it->second;
    return RouteView{std::span<const ChannelId>(cache_->pool.data() + e.offset, e.length), e.latency};
  }
  const std::size_t n = boost::num_vertices(graph_);
  std::vector<std::size_t> pred(n);
  for (std::size_t i = 0; i < n; ++i) pred[i] = i;
  boost::breadth_first_search(
      graph_, static_cast<std::size_t>(from),
      boost::visitor(boost::make_bfs_visitor(boost::record_predecessors(pred.data(), boost::on_tree_edge{}))));
  if (from != to && pred[static_cast<std::size_t>(to)] == static_cast<std::size_t>(to)) {
    throw std::runtime_error("no path from " + vertex_name(from) + " to " + vertex_name(to));
  }
  std::vector<VertexId> hops;
  for (std::size_t v = static_cast<std::size_t>(to); v != static_cast<std::size_t>(from); v = pred[v]) {
    hops.push_back(static_cast<VertexId>(v));
  }
  std::vector<ChannelId>& path = cache_->scratch;
  path.clear();
  Time latency = Time::zero();
  VertexId cur = from;
  for (auto it = hops.rbegin(); it != hops.rend(); ++it) {
    append_hop(cur, *it, path, latency);
    cur = *it;
  }
  return store(key, path, latency);
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
