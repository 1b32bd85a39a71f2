// The node and fabric builders: a few parameters in, the whole cluster graph and its part counts out.
//
// Fabric sizing (all switches of one tier have the same radix R, oversubscription o = down:up ports):
//   leaf:  rail-optimized / rail-only: one leaf per rail per scalable unit of U nodes, U down ports,
//          U/o up ports (DGX SuperPOD: 32 down, 32 up on a 64-port QM9700). Fat-tree: floor(R*o/(o+1)) down.
//   two tiers when a spine can reach every leaf: S spines, the smallest divisor of the leaf's up ports with
//          S >= leaves*up/R; every leaf has up/S cables to every spine. (1 SU: 4 spines, 2 SU: 8, 3 SU: 16,
//          4 SU: 16, 8 SU: 32 -- NVIDIA DGX SuperPOD H100 RA, Table 4, and B200 RA.)
//   three tiers otherwise: leaves of one rail form pods of P = min(leaves of the rail, R*o/(o+1)) leaves, each
//          with its own spine group (smallest divisor of up >= P*up/(R*o/(o+1))); spine j of every pod joins
//          core plane j, whose K cores (smallest divisor of the spine's up ports >= pods*up/R) each take
//          up/K cables from it. 16 SU: 128 leaf / 128 spine / 64 core; 64 SU: 512 / 512 / 256 (B200 RA).
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>

#include "sim/core/error.hpp"
#include "sim/topology/topology.hpp"

namespace cs {
namespace {

int ceil_div(int a, int b) { return (a + b - 1) / b; }

/// The smallest divisor of `n` that is at least `at_least`, or -1.
int smallest_divisor_at_least(int n, int at_least) {
  for (int d = std::max(1, at_least); d <= n; ++d) {
    if (n % d == 0) return d;
  }
  return -1;
}

int down_ports(const SwitchSpec& s, double oversubscription) {
  return static_cast<int>(std::floor(s.radix * oversubscription / (oversubscription + 1.0)));
}

struct NodeBuild {
  int vertices = 0;
  int edges = 0;
};

NodeBuild build_node(Topology& t, int node) {
  const NodeSpec& n = t.node();
  const int v0 = t.vertex_count(), e0 = t.edge_count();
  std::vector<VertexId> gpu, pcie_switch, rc, nic, dev;
  for (int i = 0; i < n.gpus; ++i) gpu.push_back(t.add_vertex({VertexKind::gpu, node, i, 0, Time::zero()}));
  VertexId nvs = -1;
  if (n.scale_up.kind == ScaleUpKind::nvswitch) {
    nvs = t.add_vertex({VertexKind::nvswitch, node, 0, 0, n.scale_up.switch_latency});
  }
  for (int i = 0; i < n.pcie.switches; ++i) {
    pcie_switch.push_back(t.add_vertex({VertexKind::pcie_switch, node, i, 0, n.pcie.switch_latency}));
  }
  for (int i = 0; i < n.pcie.root_complexes; ++i) {
    rc.push_back(t.add_vertex({VertexKind::root_complex, node, i, 0, Time::zero()}));
  }
  for (int i = 0; i < n.nic_spec.count; ++i) {
    nic.push_back(t.add_vertex({VertexKind::nic, node, i, t.rail_of_nic(i), n.nic_spec.link.latency}));
  }
  int devices = 0;
  for (const auto& d : n.devices) {
    for (int i = 0; i < d.count; ++i) dev.push_back(t.add_vertex({VertexKind::device, node, devices++, 0, Time::zero()}));
  }
  auto edge = [&](VertexId a, VertexId b, LinkTier tier, const LinkSpec& l) {
    t.add_edge(a, b, {tier, l.effective(), l.latency, 1});
  };
  const int rcs = static_cast<int>(rc.size()), sws = static_cast<int>(pcie_switch.size());
  // Where something on a GPU's PCIe switch (or CPU lanes) plugs in.
  auto gpu_attach = [&](int slot, int of) {
    return sws > 0 ? pcie_switch[static_cast<std::size_t>(slot * sws / of)]
                   : rc[static_cast<std::size_t>(slot * rcs / of)];
  };
  for (int i = 0; i < n.gpus; ++i) {
    if (nvs >= 0) edge(gpu[static_cast<std::size_t>(i)], nvs, LinkTier::nvlink, n.scale_up.link);
    edge(gpu[static_cast<std::size_t>(i)], gpu_attach(i, n.gpus), LinkTier::pcie, n.pcie.gpu_link);
  }
  for (int s = 0; s < sws; ++s) {
    edge(pcie_switch[static_cast<std::size_t>(s)], rc[static_cast<std::size_t>(s * rcs / sws)], LinkTier::pcie_uplink,
         n.pcie.switch_uplink);
  }
  for (int r = 0; r + 1 < rcs; ++r) {
    edge(rc[static_cast<std::size_t>(r)], rc[static_cast<std::size_t>(r + 1)], LinkTier::cpu_link, n.pcie.cpu_link);
  }
  for (int i = 0; i < n.nic_spec.count; ++i) {
    const VertexId at = n.nic_spec.attach == PcieAttach::gpu_switch
                            ? gpu_attach(i * n.gpus / n.nic_spec.count, n.gpus)
                            : rc[static_cast<std::size_t>(i * rcs / n.nic_spec.count)];
    edge(nic[static_cast<std::size_t>(i)], at, LinkTier::pcie, n.nic_spec.host_link);
  }
  std::size_t k = 0;
  for (const auto& d : n.devices) {
    for (int i = 0; i < d.count; ++i, ++k) {
      const VertexId at = d.attach == PcieAttach::gpu_switch ? gpu_attach(i, d.count)
                                                             : rc[static_cast<std::size_t>(i * rcs / d.count)];
      edge(dev[k], at, LinkTier::pcie, d.link);
    }
  }
  return {t.vertex_count() - v0, t.edge_count() - e0};
}

/// Counts kept while building, turned into the FabricInventory at the end.
struct Tally {
  std::map<VertexKind, SwitchTierCount> switches;
  std::map<LinkTier, int> cables;
  std::map<LinkTier, int> switch_transceivers;
  std::map<VertexId, int> ports;  // ports used per switch
  int scalable_units = 0;
  std::vector<int> dims;
  int ocs_ports = 0;  // OCS ports that carry a circuit end
};

class FabricBuilder {
 public:
  FabricBuilder(Topology& t, Tally& tally) : t_(t), f_(t.fabric()), tally_(tally) {}

  VertexId add_switch(VertexKind kind, const SwitchSpec& s, int group) {
    auto& tier = tally_.switches[kind];
    tier.tier = std::string(to_string(kind));
    tier.model = s.model;
    tier.radix = s.radix;
    const VertexId v = t_.add_vertex({kind, -1, tier.count++, group, s.latency});
    tally_.ports[v] = 0;
    return v;
  }

  void link(VertexId a, VertexId b, LinkTier tier, int cables, const LinkSpec& l) {
    t_.add_edge(a, b, {tier, l.effective() * cables, l.latency, cables});
    tally_.cables[tier] += cables;
    for (VertexId v : {a, b}) {
      if (auto it = tally_.ports.find(v); it != tally_.ports.end()) it->second += cables;
    }
  }

  /// NIC to its leaf: the slower of the NIC port and the fabric link.
  void attach_nic(VertexId nic, VertexId leaf) {
    const LinkSpec& nl = t_.node().nic_spec.link;
    LinkSpec l = f_.link.effective() < nl.effective() ? f_.link : nl;
    l.latency = f_.link.latency;
    link(nic, leaf, LinkTier::node_leaf, 1, l);
  }

  /// Spines (and cores when needed) above `leaves`; `group` of each leaf keeps pods rail-pure.
  void build_clos(const std::vector<VertexId>& leaves, const std::vector<int>& group, int up) {
    const int n_leaves = static_cast<int>(leaves.size());
    if (n_leaves <= 1 || up == 0) return;
    const int radix = f_.spine.radix;
    const int spines = smallest_divisor_at_least(up, ceil_div(n_leaves * up, radix));
    if (f_.tiers != 3 && spines > 0 && n_leaves * (up / spines) <= radix) {  // two tiers
      std::vector<VertexId> sp;
      for (int s = 0; s < spines; ++s) sp.push_back(add_switch(VertexKind::spine, f_.spine, 0));
      for (VertexId l : leaves) {
        for (VertexId s : sp) link(l, s, LinkTier::leaf_spine, up / spines, f_.link);
      }
      return;
    }
    // Three tiers: rail-pure pods, spine planes, cores per plane.
    const double o1 = f_.oversubscription.size() > 1 ? f_.oversubscription[1] : 1.0;
    const int spine_down = down_ports(f_.spine, o1);
    const int spine_up = radix - spine_down;
    std::map<int, std::vector<VertexId>> by_group;
    for (int i = 0; i < n_leaves; ++i) by_group[group[static_cast<std::size_t>(i)]].push_back(leaves[static_cast<std::size_t>(i)]);
    int pod = 0;
    const int pod_cap = f_.tiers == 3 ? std::max(1, spine_down / 2) : spine_down;
    for (const auto& [g, ls] : by_group) pod = std::max(pod, std::min(static_cast<int>(ls.size()), pod_cap));
    const int per_pod = smallest_divisor_at_least(up, ceil_div(pod * up, spine_down));
    if (per_pod < 0) throw InputError({}, "fabric", "leaf uplinks cannot be spread over a spine group");
    std::vector<std::vector<VertexId>> planes(static_cast<std::size_t>(per_pod));
    int pods = 0;
    for (const auto& [g, ls] : by_group) {
      for (std::size_t first = 0; first < ls.size(); first += static_cast<std::size_t>(pod), ++pods) {
        std::vector<VertexId> sp;
        for (int s = 0; s < per_pod; ++s) {
          sp.push_back(add_switch(VertexKind::spine, f_.spine, pods));
          planes[static_cast<std::size_t>(s)].push_back(sp.back());
        }
        const std::size_t last = std::min(ls.size(), first + static_cast<std::size_t>(pod));
        for (std::size_t i = first; i < last; ++i) {
          for (VertexId s : sp) link(ls[i], s, LinkTier::leaf_spine, up / per_pod, f_.link);
        }
      }
    }
    const int cores = smallest_divisor_at_least(spine_up, ceil_div(pods * spine_up, f_.core.radix));
    if (cores < 0 || pods * (spine_up / cores) > f_.core.radix) {
      throw InputError({}, "fabric", "the fabric needs more than three tiers for " + std::to_string(n_leaves) + " leaves");
    }
    for (int p = 0; p < per_pod; ++p) {
      std::vector<VertexId> cs;
      for (int c = 0; c < cores; ++c) cs.push_back(add_switch(VertexKind::core, f_.core, p));
      for (VertexId s : planes[static_cast<std::size_t>(p)]) {
        for (VertexId c : cs) link(s, c, LinkTier::spine_core, spine_up / cores, f_.link);
      }
    }
  }

  /// The fabric position of node k (FabricSpec::node_slots).
  [[nodiscard]] int slot(int k) const { return f_.node_slots.empty() ? k : f_.node_slots[static_cast<std::size_t>(k)]; }
  /// Fabric positions to build: the nodes, or up to the highest slot.
  [[nodiscard]] int positions() const {
    if (f_.node_slots.empty()) return t_.nodes();
    return *std::max_element(f_.node_slots.begin(), f_.node_slots.end()) + 1;
  }

  void check_slots() const {
    if (f_.node_slots.empty()) return;
    if (static_cast<int>(f_.node_slots.size()) != t_.nodes()) {
      throw InputError({}, "fabric.node_slots", std::to_string(f_.node_slots.size()) + " positions for " +
                                                    std::to_string(t_.nodes()) + " nodes");
    }
    std::vector<int> sorted = f_.node_slots;
    std::sort(sorted.begin(), sorted.end());
    if (sorted.front() < 0) throw InputError({}, "fabric.node_slots", "a position must not be negative");
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      throw InputError({}, "fabric.node_slots", "two nodes at one position");
    }
  }

  void build() {
    check_slots();
    const NodeSpec& n = t_.node();
    const int nodes = positions(), nics = n.nic_spec.count;
    auto nic = [&](int node, int i) { return t_.nic_vertex(node, i); };
    const double o0 = f_.oversubscription.empty() ? 1.0 : f_.oversubscription[0];
    switch (f_.kind) {
      case FabricKind::none:
        if (nodes > 1) throw InputError({}, "fabric.kind", "\"none\" cannot connect " + std::to_string(nodes) + " nodes");
        return;
      case FabricKind::single_switch: {
        if (nodes * nics > f_.leaf.radix) {
          throw InputError({}, "fabric.leaf.radix", std::to_string(nodes * nics) + " NIC ports do not fit one " +
                                                        std::to_string(f_.leaf.radix) + "-port switch");
        }
        if (t_.nodes() <= 1 || nics == 0) return;  // one node needs no switch
        const VertexId sw = add_switch(VertexKind::leaf, f_.leaf, 0);
        for (int k = 0; k < t_.nodes(); ++k) for (int i = 0; i < nics; ++i) attach_nic(nic(k, i), sw);
        return;
      }
      case FabricKind::rail_optimized:
      case FabricKind::rail_only: {
        // A cluster whose NIC ports fit one leaf gets one switch for every rail (NVIDIA's small-cluster
        // layout); one smaller than a scalable unit is built as a unit of its own size: its leaves need only its
        // nodes' down ports and as many up ports (a full unit's spines for a few nodes would be idle capex).
        if (nodes * nics <= f_.leaf.radix && nics > 0) {
          const VertexId sw = add_switch(VertexKind::leaf, f_.leaf, 0);
          for (int k = 0; k < t_.nodes(); ++k) for (int i = 0; i < nics; ++i) attach_nic(nic(k, i), sw);
          tally_.scalable_units = 1;
          return;
        }
        const int per_unit = std::min(f_.nodes_per_unit, std::max(1, nodes));
        const int units = ceil_div(nodes, per_unit);
        std::vector<int> rails;
        for (int i = 0; i < nics; ++i) rails.push_back(t_.rail_of_nic(i));
        std::sort(rails.begin(), rails.end());
        rails.erase(std::unique(rails.begin(), rails.end()), rails.end());
        const int nics_per_rail = nics / std::max<int>(1, static_cast<int>(rails.size()));
        const int down = per_unit * nics_per_rail;
        if (down > f_.leaf.radix) throw InputError({}, "fabric.nodes_per_unit", "more NIC ports per rail than a leaf has");
        const bool several_leaves = units * static_cast<int>(rails.size()) > 1;
        const int up = several_leaves ? static_cast<int>(std::ceil(down / o0)) : 0;
        if (down + up > f_.leaf.radix) throw InputError({}, "fabric.oversubscription", "leaf radix exceeded");
        std::map<std::pair<int, int>, VertexId> leaf;  // (unit, rail)
        std::vector<VertexId> leaves;
        std::vector<int> group;
        for (int u = 0; u < units; ++u) {
          for (int r : rails) {
            leaf[{u, r}] = add_switch(VertexKind::leaf, f_.leaf, r);
            leaves.push_back(leaf[{u, r}]);
            group.push_back(r);
          }
        }
        tally_.scalable_units = units;
        for (int k = 0; k < t_.nodes(); ++k) {
          for (int i = 0; i < nics; ++i) attach_nic(nic(k, i), leaf[{slot(k) / per_unit, t_.rail_of_nic(i)}]);
        }
        if (f_.kind == FabricKind::rail_optimized) {
          build_clos(leaves, group, up);
        } else {
          for (int r : rails) {
            std::vector<VertexId> ls;
            std::vector<int> gs;
            for (int u = 0; u < units; ++u) {
              ls.push_back(leaf[{u, r}]);
              gs.push_back(r);
            }
            build_clos(ls, gs, up);
          }
        }
        return;
      }
      case FabricKind::fat_tree: {
        const int down = down_ports(f_.leaf, o0);
        const int ports = nodes * nics;
        const int n_leaves = ceil_div(ports, down);
        const int up = n_leaves > 1 ? static_cast<int>(std::floor(down / o0)) : 0;
        std::vector<VertexId> leaves;
        for (int l = 0; l < n_leaves; ++l) leaves.push_back(add_switch(VertexKind::leaf, f_.leaf, 0));
        for (int k = 0; k < t_.nodes(); ++k) {
          for (int i = 0; i < nics; ++i) attach_nic(nic(k, i), leaves[static_cast<std::size_t>((slot(k) * nics + i) / down)]);
        }
        build_clos(leaves, std::vector<int>(leaves.size(), 0), up);
        return;
      }
      case FabricKind::torus:
      case FabricKind::hypercube: {
        std::vector<int> dims = f_.torus_dims;
        if (f_.kind == FabricKind::hypercube) {
          dims.clear();
          int m = nodes;
          while (m > 1) {
            if (m % 2 != 0) throw InputError({}, "fabric.kind", "a hypercube needs a power-of-two node count");
            dims.push_back(2);
            m /= 2;
          }
        } else if (dims.empty()) {
          int a = static_cast<int>(std::sqrt(static_cast<double>(nodes)));
          while (a > 1 && nodes % a != 0) --a;
          dims = {std::max(1, a), nodes / std::max(1, a)};
        }
        const int product = std::accumulate(dims.begin(), dims.end(), 1, std::multiplies<>());
        if (product != nodes) {
          throw InputError({}, "fabric.torus_dims", "dimensions multiply to " + std::to_string(product) + ", not " +
                                                        std::to_string(nodes) + " nodes");
        }
        SwitchSpec router = f_.leaf;
        std::vector<VertexId> routers;
        for (int k = 0; k < nodes; ++k) routers.push_back(add_switch(VertexKind::router, router, 0));
        for (int k = 0; k < t_.nodes(); ++k) {
          for (int i = 0; i < nics; ++i) attach_nic(nic(k, i), routers[static_cast<std::size_t>(slot(k))]);
        }
        int stride = 1;
        for (int d : dims) {
          for (int k = 0; k < nodes; ++k) {
            const int coord = (k / stride) % d;
            if (d == 1 || (d == 2 && coord == 1)) continue;
            const int next = k + (((coord + 1) % d) - coord) * stride;
            link(routers[static_cast<std::size_t>(k)], routers[static_cast<std::size_t>(next)], LinkTier::direct, 1, f_.link);
          }
          stride *= d;
        }
        tally_.dims = dims;
        return;
      }
      case FabricKind::dragonfly: build_dragonfly(nodes, nics); return;
      case FabricKind::ocs: build_ocs(nics); return;
    }
  }

  /// Dragonfly (Kim et al., ISCA 2008): routers of radix R take p = R/4 NIC ports each; groups of a routers
  /// (a = R/2 unless given) are all-to-all inside; each router has h = R - p - (a - 1) global ports, and every
  /// pair of groups gets an equal share of the groups' a*h global ports, spread round-robin over the routers.
  /// Routing is minimal (the Router's shortest paths with ECMP): local, global, local at most.
  void build_dragonfly(int positions, int nics) {
    const int radix = f_.leaf.radix;
    const int ports = positions * nics;
    const int p = std::max(1, radix / 4);
    const int routers = ceil_div(ports, p);
    const int a = std::min(routers, f_.dragonfly_group_routers > 0 ? f_.dragonfly_group_routers : std::max(2, radix / 2));
    const int h = radix - p - (a - 1);
    if (h < 0) throw InputError({}, "fabric.dragonfly_group_routers", "a group of " + std::to_string(a) + " routers does not fit the radix");
    const int groups = ceil_div(routers, a);
    std::vector<VertexId> r;
    for (int i = 0; i < routers; ++i) r.push_back(add_switch(VertexKind::router, f_.leaf, i / a));
    for (int k = 0; k < t_.nodes(); ++k) {
      for (int i = 0; i < nics; ++i) attach_nic(t_.nic_vertex(k, i), r[static_cast<std::size_t>((slot(k) * nics + i) / p)]);
    }
    for (int g = 0; g < groups; ++g) {
      const int first = g * a, last = std::min(routers, first + a);
      for (int i = first; i < last; ++i) {
        for (int j = i + 1; j < last; ++j) link(r[static_cast<std::size_t>(i)], r[static_cast<std::size_t>(j)], LinkTier::leaf_spine, 1, f_.link);
      }
    }
    if (groups < 2) return;
    const int per_pair = a * h / (groups - 1);
    if (per_pair < 1) {
      throw InputError({}, "fabric.kind", "a dragonfly of " + std::to_string(groups) + " groups needs more global ports per group");
    }
    std::vector<int> next(static_cast<std::size_t>(groups), 0);
    std::map<std::pair<VertexId, VertexId>, int> bundles;
    for (int gi = 0; gi < groups; ++gi) {
      for (int gj = gi + 1; gj < groups; ++gj) {
        const int size_i = std::min(a, routers - gi * a), size_j = std::min(a, routers - gj * a);
        for (int m = 0; m < per_pair; ++m) {
          const VertexId x = r[static_cast<std::size_t>(gi * a + next[static_cast<std::size_t>(gi)]++ % size_i)];
          const VertexId y = r[static_cast<std::size_t>(gj * a + next[static_cast<std::size_t>(gj)]++ % size_j)];
          ++bundles[{x, y}];
        }
      }
    }
    for (const auto& [ends, cables] : bundles) link(ends.first, ends.second, LinkTier::spine_core, cables, f_.link);
  }

  /// Optical circuit switching (TPU v4's OCS, TopoOpt): every NIC's fibre lands on an OCS port, and the OCS
  /// joins ports in pairs. With strides s_i, NIC pair (2i, 2i+1) of node k holds the circuits k -> k + s_i and
  /// k -> k - s_i (mod nodes): a circulant graph over the nodes. The node's forwarding point (a `router` vertex,
  /// no part of the bill) stands for TopoOpt's host forwarding between circuits; circuits are the `direct` tier.
  void build_ocs(int nics) {
    const int nodes = t_.nodes();
    std::vector<int> shifts = f_.ocs_shifts.empty() ? std::vector<int>{1} : f_.ocs_shifts;
    if (2 * static_cast<int>(shifts.size()) > std::max(1, nics)) {
      throw InputError({}, "fabric.ocs_shifts", std::to_string(shifts.size()) + " strides need " +
                                                    std::to_string(2 * shifts.size()) + " NICs per node, the node has " +
                                                    std::to_string(nics));
    }
    std::vector<VertexId> hosts;
    for (int k = 0; k < nodes; ++k) {
      hosts.push_back(t_.add_vertex({VertexKind::router, k, 0, 0, Time::zero()}));
    }
    for (int k = 0; k < nodes; ++k) for (int i = 0; i < nics; ++i) attach_nic(t_.nic_vertex(k, i), hosts[static_cast<std::size_t>(k)]);
    if (nodes < 2) return;
    std::map<std::pair<int, int>, int> circuits;
    if (!f_.ocs_circuits.empty()) {
      // Circuits set from a job's traffic matrix: each uses one NIC port at either end.
      std::vector<int> ports(static_cast<std::size_t>(nodes), 0);
      for (const auto& [a, b] : f_.ocs_circuits) {
        if (a < 0 || b < 0 || a >= nodes || b >= nodes || a == b) {
          throw InputError({}, "fabric.ocs_circuits", "a circuit joins two different nodes of the job");
        }
        if (++ports[static_cast<std::size_t>(a)] > nics || ++ports[static_cast<std::size_t>(b)] > nics) {
          throw InputError({}, "fabric.ocs_circuits", "more circuits at a node than its " + std::to_string(nics) + " NICs");
        }
        ++circuits[{std::min(a, b), std::max(a, b)}];
      }
    }
    // Circuits per node pair from the strides: NIC pairs beyond the strides double up on the first ones.
    for (int i = 0; f_.ocs_circuits.empty() && i < nics / 2; ++i) {
      const int s = shifts[static_cast<std::size_t>(i) % shifts.size()] % nodes;
      if (s == 0) throw InputError({}, "fabric.ocs_shifts", "a stride of a multiple of the node count joins a node to itself");
      for (int k = 0; k < nodes; ++k) {
        const int j = (k + s) % nodes;
        ++circuits[{std::min(k, j), std::max(k, j)}];
      }
    }
    for (const auto& [pair, n] : circuits) {
      link(hosts[static_cast<std::size_t>(pair.first)], hosts[static_cast<std::size_t>(pair.second)], LinkTier::direct, n, f_.link);
    }
    ocs_circuits_ = 0;
    for (const auto& [pair, n] : circuits) ocs_circuits_ += n;
    tally_.ocs_ports = 2 * ocs_circuits_;
  }

 private:
  Topology& t_;
  const FabricSpec& f_;
  Tally& tally_;
  int ocs_circuits_ = 0;
};

}  // namespace

Topology build_topology(std::string name, NodeSpec node, FabricSpec fabric, int nodes) {
  Topology t(std::move(name), std::move(node), std::move(fabric), nodes);
  NodeBuild per_node{};
  for (int k = 0; k < nodes; ++k) per_node = build_node(t, k);
  t.set_node_layout(per_node.vertices, per_node.edges);
  Tally tally;
  FabricBuilder(t, tally).build();

  const NodeSpec& n = t.node();
  const FabricSpec& f = t.fabric();
  FabricInventory& inv = t.inventory();
  inv.node_model = n.name;
  inv.fabric_kind = std::string(to_string(f.kind));
  inv.technology = f.technology;
  inv.nodes = nodes;
  inv.gpus = nodes * n.gpus;
  inv.nics = nodes * n.nic_spec.count;
  inv.scalable_units = tally.scalable_units;
  // Switch-side transceivers: each switch's used ports, per cable tier, in multi-port cages.
  std::map<std::pair<VertexId, LinkTier>, int> ports_by_tier;
  for (int e = 0; e < t.edge_count(); ++e) {
    const EdgeInfo& info = t.edge(e);
    const auto [a, b] = t.ends(e);
    for (VertexId v : {a, b}) {
      const VertexKind k = t.vertex(v).kind;
      if (k == VertexKind::leaf || k == VertexKind::spine || k == VertexKind::core || k == VertexKind::router) {
        ports_by_tier[{v, info.tier}] += info.cables;
      }
    }
  }
  const bool ocs = f.kind == FabricKind::ocs;
  if (ocs) ports_by_tier.clear();  // the nodes' forwarding points are no switches; the OCS has no transceivers
  for (auto& [kind, s] : tally.switches) {
    s.ports_used = 0;
    inv.switches.push_back(s);
  }
  if (ocs && tally.ocs_ports > 0) {
    inv.switches.push_back({"ocs", f.ocs.model, f.ocs.radix, ceil_div(tally.ocs_ports, f.ocs.radix), tally.ocs_ports});
  }
  for (const auto& [key, p] : ports_by_tier) {
    const VertexKind k = t.vertex(key.first).kind;
    for (auto& s : inv.switches) {
      if (s.tier == to_string(k)) s.ports_used += p;
    }
  }
  const LinkTier tiers[] = {LinkTier::node_leaf, LinkTier::leaf_spine, LinkTier::spine_core, LinkTier::direct};
  for (std::size_t i = 0; i < 4; ++i) {
    const LinkTier tier = tiers[i];
    auto it = tally.cables.find(tier);
    if (it == tally.cables.end() || it->second == 0) continue;
    if (ocs && tier == LinkTier::direct) continue;  // circuits are made inside the OCS, not cabled
    CableTierCount c;
    c.tier = std::string(to_string(tier));
    c.cables = it->second;
    c.optical = f.optical.size() > std::min<std::size_t>(i, 2) ? f.optical[std::min<std::size_t>(i, 2)] : true;
    c.speed = f.link.bandwidth;
    if (c.optical) {
      if (tier == LinkTier::node_leaf) {
        c.node_transceivers = nodes * ceil_div(n.nic_spec.count, std::max(1, f.node_ports_per_transceiver));
      }
      for (const auto& [key, p] : ports_by_tier) {
        if (key.second == tier) c.switch_transceivers += ceil_div(p, std::max(1, f.switch_ports_per_transceiver));
      }
    }
    inv.cables.push_back(c);
  }
  return t;
}

}  // namespace cs
