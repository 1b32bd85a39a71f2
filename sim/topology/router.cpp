#include "sim/topology/router.hpp"

#include <boost/graph/breadth_first_search.hpp>
#include <deque>
#include <limits>
#include <stdexcept>

namespace cs {

namespace {
constexpr std::uint16_t kUnreached = std::numeric_limits<std::uint16_t>::max();

std::uint64_t mix(std::uint64_t x) noexcept {  // splitmix64 finaliser: a fixed, portable hash
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

Router::Router(const Topology& topology) : t_(topology) { index_fabric(); }



// PCIe paths inside one node: a BFS over node 0's PCIe links, cached as a template and shifted to `node`.
void Router::append_pcie_path(VertexId from, VertexId to, std::vector<ChannelId>& out, Time& latency) {
  if (from == to) return;
  const int node = t_.vertex(from).node;
  const int vbase = node * t_.vertices_per_node();
  const int ebase = node * t_.edges_per_node();
  const int lf = from - vbase, lt = to - vbase;
  const std::uint64_t key = (static_cast<std::uint64_t>(lf) << 32) | static_cast<std::uint32_t>(lt);
  auto it = pcie_paths_.find(key);
  if (it == pcie_paths_.end()) {
    std::vector<int> prev_edge(static_cast<std::size_t>(t_.vertices_per_node()), -1);
    std::vector<char> seen(static_cast<std::size_t>(t_.vertices_per_node()), 0);
    std::deque<int> queue{lf};
    seen[static_cast<std::size_t>(lf)] = 1;
    while (!queue.empty() && !seen[static_cast<std::size_t>(lt)]) {
      const int u = queue.front();
      queue.pop_front();
      for (auto [ei, ee] = boost::out_edges(static_cast<std::size_t>(u), t_.graph()); ei != ee; ++ei) {
        const int e = boost::get(boost::edge_index, t_.graph(), *ei);
        const LinkTier t = t_.edge(e).tier;
        if (t != LinkTier::pcie && t != LinkTier::pcie_uplink && t != LinkTier::cpu_link) continue;
        const int w = static_cast<int>(boost::target(*ei, t_.graph()));
        if (w >= t_.vertices_per_node() || seen[static_cast<std::size_t>(w)]) continue;
        seen[static_cast<std::size_t>(w)] = 1;
        prev_edge[static_cast<std::size_t>(w)] = e;
        queue.push_back(w);
      }
    }
    if (!seen[static_cast<std::size_t>(lt)]) {
      throw std::runtime_error("no PCIe path from " + t_.vertex_name(from) + " to " + t_.vertex_name(to));
    }
    std::vector<std::pair<int, int>> path;
    for (int v = lt; v != lf;) {
      const int e = prev_edge[static_cast<std::size_t>(v)];
      const auto [a, b] = t_.ends(e);
      const int u = (a == v) ? b : a;
      path.emplace_back(e, a == u ? 0 : 1);
      v = u;
    }
    it = pcie_paths_.emplace(key, std::vector<std::pair<int, int>>(path.rbegin(), path.rend())).first;
  }
  for (const auto& [e, dir] : it->second) {
    const int ge = e + ebase;
    out.push_back(static_cast<ChannelId>(2 * ge + dir));
    const VertexId next = dir == 0 ? t_.ends(ge).second : t_.ends(ge).first;
    latency += t_.edge(ge).latency + t_.vertex(next).latency;
  }
}

void Router::index_fabric() {
  fabric_index_.assign(static_cast<std::size_t>(t_.vertex_count()), -1);
  nic_switch_.assign(static_cast<std::size_t>(t_.vertex_count()), -1);
  for (std::size_t v = 0; v < static_cast<std::size_t>(t_.vertex_count()); ++v) {
    const VertexKind k = t_.vertex(static_cast<VertexId>(v)).kind;
    if (k == VertexKind::leaf || k == VertexKind::spine || k == VertexKind::core || k == VertexKind::router) {
      fabric_index_[v] = static_cast<int>(fabric_vertex_.size());
      fabric_vertex_.push_back(static_cast<VertexId>(v));
    }
  }
  fabric_adj_.resize(fabric_vertex_.size());
  for (std::size_t e = 0; e < static_cast<std::size_t>(t_.edge_count()); ++e) {
    const auto [a, b] = t_.ends(static_cast<int>(e));
    const int fa = fabric_index_[static_cast<std::size_t>(a)], fb = fabric_index_[static_cast<std::size_t>(b)];
    if (fa >= 0 && fb >= 0) {
      fabric_adj_[static_cast<std::size_t>(fa)].emplace_back(fb, static_cast<int>(e));
      fabric_adj_[static_cast<std::size_t>(fb)].emplace_back(fa, static_cast<int>(e));
    } else if (fa >= 0 && t_.vertex(b).kind == VertexKind::nic) {
      nic_switch_[static_cast<std::size_t>(b)] = a;
    } else if (fb >= 0 && t_.vertex(a).kind == VertexKind::nic) {
      nic_switch_[static_cast<std::size_t>(a)] = b;
    }
  }
}

const std::vector<std::uint16_t>& Router::fabric_distances_to(VertexId sw) {
  const int target = fabric_index_[static_cast<std::size_t>(sw)];
  auto it = distances_.find(target);
  if (it != distances_.end()) return it->second;
  std::vector<std::uint16_t> dist(fabric_vertex_.size(), kUnreached);
  std::deque<int> queue{target};
  dist[static_cast<std::size_t>(target)] = 0;
  while (!queue.empty()) {
    const int u = queue.front();
    queue.pop_front();
    for (const auto& [w, e] : fabric_adj_[static_cast<std::size_t>(u)]) {
      if (dist[static_cast<std::size_t>(w)] != kUnreached) continue;
      dist[static_cast<std::size_t>(w)] = static_cast<std::uint16_t>(dist[static_cast<std::size_t>(u)] + 1);
      queue.push_back(w);
    }
  }
  return distances_.emplace(target, std::move(dist)).first->second;
}

VertexId Router::attachment_switch(VertexId nic) const {
  return nic_switch_[static_cast<std::size_t>(nic)];
}

int Router::fabric_distance(VertexId nic_a, VertexId nic_b) {
  const VertexId sa = attachment_switch(nic_a), sb = attachment_switch(nic_b);
  if (sa < 0 || sb < 0) return -1;
  if (sa == sb) return 0;
  const auto& dist = fabric_distances_to(sb);
  const std::uint16_t d = dist[static_cast<std::size_t>(fabric_index_[static_cast<std::size_t>(sa)])];
  return d == kUnreached ? -1 : d;
}

// NIC -> its switch -> ... -> the destination NIC's switch -> NIC. At each switch the next hop is one of the
// neighbours one step closer to the destination; which one is a fixed hash of (flow ends, hop), so the same
// pair always takes the same path and different pairs spread evenly (deterministic ECMP).
void Router::append_fabric_path(VertexId nic_from, VertexId nic_to, std::uint64_t hash,
                                  std::vector<ChannelId>& out, Time& latency) {
  const VertexId sa = attachment_switch(nic_from), sb = attachment_switch(nic_to);
  append_hop(nic_from, sa, out, latency);
  append_switch_path(sa, sb, hash, out, latency);
  append_hop(sb, nic_to, out, latency);
}

void Router::append_switch_path(VertexId sa, VertexId sb, std::uint64_t hash, std::vector<ChannelId>& out,
                                Time& latency) {
  if (sa != sb) {
    const auto& dist = fabric_distances_to(sb);
    int u = fabric_index_[static_cast<std::size_t>(sa)];
    if (dist[static_cast<std::size_t>(u)] == kUnreached) {
      throw std::runtime_error("no fabric path from " + t_.vertex_name(sa) + " to " + t_.vertex_name(sb));
    }
    for (int hop = 0; dist[static_cast<std::size_t>(u)] != 0; ++hop) {
      const std::uint16_t want = static_cast<std::uint16_t>(dist[static_cast<std::size_t>(u)] - 1);
      int candidates = 0;
      for (const auto& [w, e] : fabric_adj_[static_cast<std::size_t>(u)]) candidates += dist[static_cast<std::size_t>(w)] == want;
      int pick = static_cast<int>(mix(hash + static_cast<std::uint64_t>(hop) * 0x632be59bd9b4e019ULL) %
                                  static_cast<std::uint64_t>(candidates));
      for (const auto& [w, e] : fabric_adj_[static_cast<std::size_t>(u)]) {
        if (dist[static_cast<std::size_t>(w)] != want || pick-- != 0) continue;
        const VertexId from = fabric_vertex_[static_cast<std::size_t>(u)];
        const VertexId to = fabric_vertex_[static_cast<std::size_t>(w)];
        out.push_back(static_cast<ChannelId>(2 * e + (t_.ends(e).first == from ? 0 : 1)));
        latency += t_.edge(e).latency + t_.vertex(to).latency;
        u = w;
        break;
      }
    }
  }
}

RouteView Router::route_switches(VertexId from, VertexId to) {
  const std::uint64_t key = (3ULL << 62) | (static_cast<std::uint64_t>(from) << 31) | static_cast<std::uint32_t>(to);
  if (const RouteTable::Entry* e = routes_.find(key)) {
    return RouteView{std::span<const ChannelId>(pool_.data() + e->offset, e->length), e->latency};
  }
  if (fabric_index_[static_cast<std::size_t>(from)] < 0 || fabric_index_[static_cast<std::size_t>(to)] < 0) {
    throw std::logic_error("route_switches: " + t_.vertex_name(from) + " or " + t_.vertex_name(to) + " is not a fabric switch");
  }
  std::vector<ChannelId>& path = scratch_;
  path.clear();
  Time latency = Time::zero();
  append_switch_path(from, to, mix(key), path, latency);
  return store(key, path, latency);
}

RouteView Router::route(int src, int dst) {
  if (src < 0 || dst < 0 || src >= t_.gpu_count() || dst >= t_.gpu_count()) {
    throw std::out_of_range("GPU rank out of range: " + std::to_string(src) + " -> " + std::to_string(dst));
  }
  const std::uint64_t key = (static_cast<std::uint64_t>(src) << 32) | static_cast<std::uint32_t>(dst);
  if (const RouteTable::Entry* e = routes_.find(key)) {
    return RouteView{std::span<const ChannelId>(pool_.data() + e->offset, e->length), e->latency};
  }
  std::vector<ChannelId>& path = scratch_;
  path.clear();
  Time latency = Time::zero();
  const VertexId gs = t_.gpu_vertex(src), gd = t_.gpu_vertex(dst);
  const int ns = t_.node_of(src), nd = t_.node_of(dst);
  if (src == dst) return store(key, path, latency);
  if (ns == nd) {
    if (t_.node().scale_up.kind == ScaleUpKind::nvswitch) {
      append_hop(gs, t_.nvswitch_vertex(ns), path, latency);
      append_hop(t_.nvswitch_vertex(ns), gd, path, latency);
    } else {
      append_pcie_path(gs, gd, path, latency);
    }
    return store(key, path, latency);
  }
  if (t_.node().nic_spec.count == 0) {
    throw std::runtime_error("GPU " + std::to_string(src) + " and GPU " + std::to_string(dst) +
                             " are on different nodes but the node has no NIC");
  }
  const VertexId nic_d = t_.nic_vertex(nd, t_.nic_of_local_gpu(t_.local_of(dst)));
  int nic_s_local = t_.nic_of_local_gpu(t_.local_of(src));
  VertexId via_gpu = gs;
  if (fabric_distance(t_.nic_vertex(ns, nic_s_local), nic_d) < 0) {
    // PXN: forward over NVLink to the local GPU whose NIC reaches the destination (rail-only fabrics).
    nic_s_local = -1;
    for (int g = 0; g < t_.node().gpus && nic_s_local < 0; ++g) {
      const int n = t_.nic_of_local_gpu(g);
      if (fabric_distance(t_.nic_vertex(ns, n), nic_d) >= 0) {
        nic_s_local = n;
        via_gpu = t_.gpu_vertex(ns * t_.node().gpus + g);
      }
    }
    if (nic_s_local < 0) {
      throw std::runtime_error("no fabric path from node " + std::to_string(ns) + " to " + t_.vertex_name(nic_d));
    }
    if (t_.node().scale_up.kind == ScaleUpKind::nvswitch) {
      append_hop(gs, t_.nvswitch_vertex(ns), path, latency);
      append_hop(t_.nvswitch_vertex(ns), via_gpu, path, latency);
    } else {
      append_pcie_path(gs, via_gpu, path, latency);
    }
  }
  const VertexId nic_s = t_.nic_vertex(ns, nic_s_local);
  append_pcie_path(via_gpu, nic_s, path, latency);
  latency += t_.vertex(nic_s).latency;
  append_fabric_path(nic_s, nic_d, mix(key), path, latency);
  append_pcie_path(nic_d, gd, path, latency);
  return store(key, path, latency);
}

RouteView Router::route_to_fabric(int gpu, bool upward) {
  const std::uint64_t key = (1ULL << 62) | (static_cast<std::uint64_t>(gpu) << 1) | (upward ? 1U : 0U);
  if (const RouteTable::Entry* e = routes_.find(key)) {
    return RouteView{std::span<const ChannelId>(pool_.data() + e->offset, e->length), e->latency};
  }
  const int node = t_.node_of(gpu);
  const int nic_local = t_.nic_of_local_gpu(t_.local_of(gpu));
  if (nic_local < 0) throw std::runtime_error("GPU " + std::to_string(gpu) + " has no NIC");
  const VertexId nic = t_.nic_vertex(node, nic_local);
  const VertexId sw = attachment_switch(nic);
  if (sw < 0) throw std::runtime_error(t_.vertex_name(nic) + " is not attached to a fabric switch");
  std::vector<ChannelId>& path = scratch_;
  path.clear();
  Time latency = Time::zero();
  if (upward) {
    append_pcie_path(t_.gpu_vertex(gpu), nic, path, latency);
    latency += t_.vertex(nic).latency;
    append_hop(nic, sw, path, latency);
  } else {
    append_hop(sw, nic, path, latency);
    append_pcie_path(nic, t_.gpu_vertex(gpu), path, latency);
  }
  return store(key, path, latency);
}

RouteView Router::route_vertices(VertexId from, VertexId to) {
  const std::uint64_t key = (1ULL << 63) | (static_cast<std::uint64_t>(from) << 32) | static_cast<std::uint32_t>(to);
  if (const RouteTable::Entry* e = routes_.find(key)) {
    return RouteView{std::span<const ChannelId>(pool_.data() + e->offset, e->length), e->latency};
  }
  const std::size_t n = boost::num_vertices(t_.graph());
  std::vector<std::size_t> pred(n);
  for (std::size_t i = 0; i < n; ++i) pred[i] = i;
  boost::breadth_first_search(
      t_.graph(), static_cast<std::size_t>(from),
      boost::visitor(boost::make_bfs_visitor(boost::record_predecessors(pred.data(), boost::on_tree_edge{}))));
  if (from != to && pred[static_cast<std::size_t>(to)] == static_cast<std::size_t>(to)) {
    throw std::runtime_error("no path from " + t_.vertex_name(from) + " to " + t_.vertex_name(to));
  }
  std::vector<VertexId> hops;
  for (std::size_t v = static_cast<std::size_t>(to); v != static_cast<std::size_t>(from); v = pred[v]) {
    hops.push_back(static_cast<VertexId>(v));
  }
  std::vector<ChannelId>& path = scratch_;
  path.clear();
  Time latency = Time::zero();
  VertexId cur = from;
  for (auto it = hops.rbegin(); it != hops.rend(); ++it) {
    append_hop(cur, *it, path, latency);
    cur = *it;
  }
  return store(key, path, latency);
}

RouteView Router::store(std::uint64_t key, const std::vector<ChannelId>& path, Time latency) {
  const RouteTable::Entry e{static_cast<std::uint32_t>(pool_.size()), static_cast<std::uint32_t>(path.size()), latency};
  pool_.insert(pool_.end(), path.begin(), path.end());
  routes_.insert(key, e);
  return RouteView{std::span<const ChannelId>(pool_.data() + e.offset, e.length), latency};
}


void Router::append_hop(VertexId from, VertexId to, std::vector<ChannelId>& out, Time& latency) {
  const ChannelId c = t_.channel_between(from, to);
  out.push_back(c);
  latency += t_.channel_edge(c).latency + t_.vertex(to).latency;
}

}  // namespace cs
