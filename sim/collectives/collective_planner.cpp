#include "sim/collectives/collective_planner.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace cs {
namespace {

/// Turns one group's collective into phases of flows, appended to a FlowPlan.
class GroupPlanner {
 public:
  GroupPlanner(const Topology& t, Router& router, FlowPlan& plan, double efficiency, std::vector<VertexId>& tops,
               std::map<ChannelId, int>& load)
      : t_(t), router_(router), run_(plan), eff_(efficiency), tops_(tops), load_(load) {}

  /// A flow between two GPUs carrying `bytes` over `steps` sequential algorithm steps.
  void gpu_flow(std::size_t phase, int src, int dst, double bytes, int steps) {
    if (src == dst || bytes <= 0) return;
    add(phase, router_.route(src, dst), bytes, steps);
  }
  void add(std::size_t phase, RouteView r, double bytes, int steps) {
    if (run_.phases.size() <= phase) run_.phases.resize(phase + 1);
    const auto off = static_cast<std::uint32_t>(run_.channels.size());
    run_.channels.insert(run_.channels.end(), r.channels.begin(), r.channels.end());
    run_.phases[phase].push_back({off, static_cast<std::uint32_t>(r.channels.size()), Bytes{bytes},
                                  r.latency * std::max(1, steps), eff_});
  }
  void single(std::size_t phase, ChannelId c, Time latency, double bytes) {
    const ChannelId one[] = {c};
    add(phase, RouteView{one, latency}, bytes, 1);
  }

  /// The group by node, nodes in rank order, ranks sorted inside each node.
  static std::vector<std::vector<int>> by_node(const Topology& t, std::vector<int> group) {
    std::sort(group.begin(), group.end());
    std::vector<std::vector<int>> out;
    std::map<int, std::size_t> index;
    for (int r : group) {
      const auto [it, fresh] = index.emplace(t.node_of(r), out.size());
      if (fresh) out.emplace_back();
      out[it->second].push_back(r);
    }
    return out;
  }

  /// NCCL's rail-aligned rings: channel c visits node k's ranks rotated by c, every other node in reverse
  /// ("snake"), so each node boundary is crossed between two GPUs of the same local index: one rail.
  [[nodiscard]] std::vector<std::vector<int>> rings(const std::vector<std::vector<int>>& nodes, int channels) const {
    std::vector<std::vector<int>> out;
    for (int c = 0; c < channels; ++c) {
      std::vector<int> seq;
      for (std::size_t k = 0; k < nodes.size(); ++k) {
        std::vector<int> l = nodes[k];
        std::rotate(l.begin(), l.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(c) % l.size()), l.end());
        if (k % 2 == 1) std::reverse(l.begin(), l.end());
        seq.insert(seq.end(), l.begin(), l.end());
      }
      out.push_back(std::move(seq));
    }
    return out;
  }

  [[nodiscard]] int channels_for(const GroupShape& g) const {
    if (g.nodes <= 1 || !g.uniform) return 1;
    return std::max(1, std::min(g.per_node, std::max(1, t_.node().nic_spec.count)));
  }

  void ring(CollectiveKind k, const std::vector<int>& group, double S, const GroupShape& g, std::size_t phase = 0) {
    const int n = g.ranks;
    const int C = channels_for(g);
    const double dn = n;
    double per_edge = 0;
    int steps = 1;
    bool chain = false;
    switch (k) {
      case CollectiveKind::all_reduce: per_edge = 2 * (dn - 1) / dn * S; steps = 2 * (n - 1); break;
      case CollectiveKind::all_gather:
      case CollectiveKind::reduce_scatter: per_edge = (dn - 1) / dn * S; steps = n - 1; break;
      case CollectiveKind::broadcast:
      case CollectiveKind::reduce: per_edge = S; steps = n - 1; chain = true; break;
      case CollectiveKind::all_to_all:
        for (int a : group) {
          for (int b : group) gpu_flow(phase, a, b, S / dn, 1);
        }
        return;
      case CollectiveKind::send_recv:
        if (group.size() >= 2) gpu_flow(phase, group[0], group[1], S, 1);
        return;
    }
    // A chunk crosses every edge of its ring once per pass, so the ring's latency is `steps` times the mean
    // edge latency (intra-node edges are short, node-crossing edges long), the same for every edge's flow.
    for (const auto& seq : rings(by_node(t_, group), C)) {
      std::vector<std::pair<int, int>> edges;
      for (std::size_t i = 0; i + 1 < seq.size(); ++i) edges.emplace_back(seq[i], seq[i + 1]);
      if (!chain && seq.size() > 1) edges.emplace_back(seq.back(), seq.front());
      Time sum = Time::zero();
      for (const auto& [a, b] : edges) sum += router_.route(a, b).latency;
      const Time mean = edges.empty() ? Time::zero() : Time::ns(sum.count_ns() / static_cast<std::int64_t>(edges.size()));
      for (const auto& [a, b] : edges) add_with_latency(phase, router_.route(a, b), per_edge / C, mean * steps);
    }
  }

  void add_with_latency(std::size_t phase, RouteView r, double bytes, Time latency) {
    add(phase, RouteView{r.channels, Time::zero()}, bytes, 1);
    run_.phases[phase].back().latency = latency;
  }

  /// NCCL's double binary tree among nodes (two in-order trees, the second mirrored so that each node is a
  /// leaf in one of them), a chain inside each node; every tree half carries S/2, both directions at once.
  void tree(const std::vector<int>& group, double S, const GroupShape& g) {
    const auto nodes = by_node(t_, group);
    const int C = channels_for(g);
    const int N = static_cast<int>(nodes.size());
    for (int c = 0; c < C; ++c) {
      std::vector<int> head(static_cast<std::size_t>(N));
      for (int k = 0; k < N; ++k) {
        std::vector<int> l = nodes[static_cast<std::size_t>(k)];
        std::rotate(l.begin(), l.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(c) % l.size()), l.end());
        head[static_cast<std::size_t>(k)] = l.front();
        for (std::size_t i = 0; i + 1 < l.size(); ++i) {
          gpu_flow(0, l[i], l[i + 1], S / C, 1);
          gpu_flow(0, l[i + 1], l[i], S / C, 1);
        }
      }
      for (int tr = 0; tr < 2; ++tr) {
        std::vector<std::pair<int, int>> edges;  // (parent, child) node indices
        in_order(0, N, -1, edges);
        for (auto [p, q] : edges) {
          if (tr == 1) {
            p = N - 1 - p;
            q = N - 1 - q;
          }
          gpu_flow(0, head[static_cast<std::size_t>(q)], head[static_cast<std::size_t>(p)], S / (2.0 * C), 1);
          gpu_flow(0, head[static_cast<std::size_t>(p)], head[static_cast<std::size_t>(q)], S / (2.0 * C), 1);
        }
      }
    }
  }

  static void in_order(int lo, int hi, int parent, std::vector<std::pair<int, int>>& edges) {
    if (lo >= hi) return;
    const int mid = lo + (hi - lo) / 2;
    if (parent >= 0) edges.emplace_back(parent, mid);
    in_order(lo, mid, mid, edges);
    in_order(mid + 1, hi, mid, edges);
  }

  /// Rabenseifner: recursive halving (reduce-scatter, far partners first), recursive doubling (all-gather);
  /// ranks beyond the largest power of two p fold into their partner before and get the result after.
  void halving_doubling(CollectiveKind k, std::vector<int> group, double S) {
    std::sort(group.begin(), group.end());
    const int n = static_cast<int>(group.size());
    int p = 1;
    while (p * 2 <= n) p *= 2;
    const int rounds = static_cast<int>(std::log2(p));
    std::size_t phase = 0;
    auto r = [&](int i) { return group[static_cast<std::size_t>(i)]; };
    const bool rs = k != CollectiveKind::all_gather, ag = k != CollectiveKind::reduce_scatter;
    if (rs && n > p) {
      for (int i = p; i < n; ++i) gpu_flow(phase, r(i), r(i - p), S, 1);
      ++phase;
    }
    if (rs) {
      for (int round = 0; round < rounds; ++round, ++phase) {
        const int d = p >> (round + 1);
        for (int i = 0; i < p; ++i) gpu_flow(phase, r(i), r(i ^ d), S / std::pow(2.0, round + 1), 1);
      }
    }
    if (ag) {
      for (int round = 0; round < rounds; ++round, ++phase) {
        const int d = 1 << round;
        for (int i = 0; i < p; ++i) gpu_flow(phase, r(i), r(i ^ d), S * d / p, 1);
      }
      if (n > p) {
        for (int i = p; i < n; ++i) gpu_flow(phase, r(i - p), r(i), S, 1);
      }
    }
  }

  /// Reduce-scatter inside each node (ring over NVLink), all-reduce across nodes per local index (one rail
  /// each), all-gather inside each node. Pipelined: the three stages as concurrent flows; else in sequence.
  void hierarchical(CollectiveKind k, const std::vector<int>& group, double S, const GroupShape& g, bool pipelined) {
    const auto nodes = by_node(t_, group);
    const int m = g.per_node, N = g.nodes;
    const double dm = m, dN = N, dn = g.ranks;
    auto intra = [&](std::size_t phase, double per_edge, int steps) {
      for (const auto& l : nodes) {
        for (std::size_t i = 0; i < l.size(); ++i) gpu_flow(phase, l[i], l[(i + 1) % l.size()], per_edge, steps);
      }
    };
    auto inter = [&](std::size_t phase, double per_edge, int steps) {
      for (int j = 0; j < m; ++j) {
        for (int a = 0; a < N; ++a) {
          gpu_flow(phase, nodes[static_cast<std::size_t>(a)][static_cast<std::size_t>(j)],
                   nodes[static_cast<std::size_t>((a + 1) % N)][static_cast<std::size_t>(j)], per_edge, steps);
        }
      }
    };
    const std::size_t p1 = pipelined ? 0 : 1, p2 = pipelined ? 0 : 2;
    switch (k) {
      case CollectiveKind::all_reduce:
        intra(0, (dm - 1) / dm * S, m - 1);
        inter(p1, 2 * (dN - 1) / dN * S / dm, 2 * (N - 1));
        intra(p2, (dm - 1) / dm * S, m - 1);
        break;
      case CollectiveKind::all_gather:
        inter(0, (dN - 1) / dn * S, N - 1);
        intra(p1, (dm - 1) / dm * S, m - 1);
        break;
      default:  // reduce-scatter
        intra(0, (dm - 1) / dm * S, m - 1);
        inter(p1, (dN - 1) / dn * S, N - 1);
        break;
    }
  }

  /// NVLink SHARP: every GPU pushes its buffer into the NVSwitch (multimem reduce-scatter, S) and its reduced
  /// shard back (multicast all-gather, S/m), and receives S/m + S. Across nodes, a per-rail ring all-reduce of
  /// each GPU's shard S/m runs concurrently (NCCL's NVLS + network).
  void nvls(const std::vector<int>& group, double S, const GroupShape& g) {
    const double dm = g.per_node;
    for (int r : group) {
      const VertexId gpu = t_.gpu_vertex(r), sw = t_.nvswitch_vertex(t_.node_of(r));
      const ChannelId up = t_.channel_between(gpu, sw), down = t_.channel_between(sw, gpu);
      const Time lat = t_.channel_edge(up).latency + t_.vertex(sw).latency;
      single(0, up, lat, S * (1 + 1 / dm));
      single(0, down, lat, S * (1 + 1 / dm));
    }
    if (g.nodes > 1) {
      const auto nodes = by_node(t_, group);
      const int N = g.nodes;
      for (int j = 0; j < g.per_node; ++j) {
        for (int a = 0; a < N; ++a) {
          gpu_flow(0, nodes[static_cast<std::size_t>(a)][static_cast<std::size_t>(j)],
                   nodes[static_cast<std::size_t>((a + 1) % N)][static_cast<std::size_t>(j)],
                   2.0 * (N - 1) / N * S / dm, 2 * (N - 1));
        }
      }
    }
  }

  /// InfiniBand SHARP (NCCL CollNet): inside each node a reduce-scatter and all-gather over NVLink (ring);
  /// each GPU's shard S/m goes up to its leaf switch and the reduced shard comes back; leaves forward one
  /// aggregate per shard they hold to a root switch (a spine, or a core with three tiers) and back.
  void in_network(const std::vector<int>& group, double S, const GroupShape& g) {
    const auto nodes = by_node(t_, group);
    const double dm = g.per_node;
    if (g.per_node > 1) {
      for (const auto& l : nodes) {
        for (std::size_t i = 0; i < l.size(); ++i) {
          gpu_flow(0, l[i], l[(i + 1) % l.size()], 2 * (dm - 1) / dm * S, 2 * (g.per_node - 1));
        }
      }
    }
    std::map<VertexId, std::map<int, int>> shards_at_leaf;  // leaf -> shard index -> ranks
    for (const auto& l : nodes) {
      for (std::size_t j = 0; j < l.size(); ++j) {
        add(0, router_.route_to_fabric(l[j], true), S / dm, 1);
        add(0, router_.route_to_fabric(l[j], false), S / dm, 1);
        const VertexId nic = t_.nic_vertex(t_.node_of(l[j]), t_.nic_of_local_gpu(t_.local_of(l[j])));
        ++shards_at_leaf[router_.attachment_switch(nic)][static_cast<int>(j)];
      }
    }
    if (shards_at_leaf.size() <= 1) return;
    // The aggregation tree's root: one switch of the top tier. Concurrent groups get their roots balanced:
    // each group takes the top switch whose busiest link from this group's leaves has the fewest trees so far.
    if (tops_.empty()) {
      for (VertexKind want : {VertexKind::core, VertexKind::spine}) {
        for (VertexId v = 0; v < t_.vertex_count(); ++v) {
          if (t_.vertex(v).kind == want) tops_.push_back(v);
        }
        if (!tops_.empty()) break;
      }
    }
    if (tops_.empty()) return;
    // Candidates in an order rotated by the group's first rank; stop at the first root whose leaf uplinks carry
    // no tree yet.
    const std::size_t first = static_cast<std::size_t>(*std::min_element(group.begin(), group.end())) % tops_.size();
    VertexId root = tops_[first];
    int best = -1;
    for (std::size_t i = 0; i < tops_.size() && best != 0; ++i) {
      const VertexId top = tops_[(first + i) % tops_.size()];
      int worst = 0;
      for (const auto& [leaf, shards] : shards_at_leaf) {
        if (leaf == top) continue;
        worst = std::max(worst, load_[router_.route_switches(leaf, top).channels.front()]);
      }
      if (best < 0 || worst < best) {
        best = worst;
        root = top;
      }
    }
    for (const auto& [leaf, shards] : shards_at_leaf) {
      if (leaf != root) ++load_[router_.route_switches(leaf, root).channels.front()];
    }
    // Switches reduce as they forward: every link of the tree (the union of the leaves' paths to the root)
    // carries one aggregate per shard below it, up and then down again.
    std::map<ChannelId, double> tree;
    for (const auto& [leaf, shards] : shards_at_leaf) {
      const double bytes = static_cast<double>(shards.size()) * S / dm;
      for (ChannelId c : router_.route_switches(leaf, root).channels) tree[c] = std::max(tree[c], bytes);
    }
    for (const auto& [c, bytes] : tree) {
      const Time lat = t_.channel_edge(c).latency + t_.vertex(t_.ends(static_cast<int>(c / 2)).second).latency;
      single(0, c, lat, bytes);
      single(0, c ^ 1U, lat, bytes);
    }
  }

 private:
  const Topology& t_;
  Router& router_;
  FlowPlan& run_;
  double eff_;  // the calibration's bandwidth factor for every flow of this group
  std::vector<VertexId>& tops_;                          // top-tier switches (SHARP roots), found once
  std::map<ChannelId, int>& load_;  // leaf uplink -> SHARP trees using it, within one request
};

}  // namespace

void CollectivePlanner::plan_group(FlowPlan& plan, CollectiveKind kind, CollectiveAlgorithm a,
                                   const std::vector<int>& group, const GroupShape& g, Bytes bytes,
                                   double bandwidth_factor, bool pipelined) {
  GroupPlanner p(topo_, router_, plan, bandwidth_factor, sharp_roots_, sharp_load_);
  const double S = bytes.value();
  switch (kind == CollectiveKind::all_to_all || kind == CollectiveKind::send_recv ? CollectiveAlgorithm::ring : a) {
    case CollectiveAlgorithm::automatic:
    case CollectiveAlgorithm::ring: p.ring(kind, group, S, g); break;
    case CollectiveAlgorithm::tree: p.tree(group, S, g); break;
    case CollectiveAlgorithm::halving_doubling: p.halving_doubling(kind, group, S); break;
    case CollectiveAlgorithm::hierarchical: p.hierarchical(kind, group, S, g, pipelined); break;
    case CollectiveAlgorithm::nvls: p.nvls(group, S, g); break;
    case CollectiveAlgorithm::in_network: p.in_network(group, S, g); break;
  }
}

}  // namespace cs
