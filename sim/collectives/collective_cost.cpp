#include "sim/collectives/collective_cost.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

#include "sim/topology/router.hpp"

namespace cs {

// Called for every group of every collective (a pipeline transfer is 2,048 groups of two), so small groups are
// counted on the stack.
GroupShape shape_of(const Topology& t, const std::vector<int>& group) {
  GroupShape g;
  g.ranks = static_cast<int>(group.size());
  std::array<int, 64> small;
  std::vector<int> large;
  std::span<int> nodes(small.data(), group.size());
  if (group.size() > small.size()) {
    large.resize(group.size());
    nodes = large;
  }
  std::transform(group.begin(), group.end(), nodes.begin(), [&t](int r) { return t.node_of(r); });
  std::sort(nodes.begin(), nodes.end());
  for (std::size_t i = 0; i < nodes.size();) {  // each run of one node id is that node's ranks
    std::size_t j = i;
    while (j < nodes.size() && nodes[j] == nodes[i]) ++j;
    const int k = static_cast<int>(j - i);
    g.uniform = g.uniform && (g.nodes == 0 || k == g.per_node);
    ++g.nodes;
    g.per_node = std::max(g.per_node, k);
    i = j;
  }
  g.intra_class = t.node().scale_up.kind == ScaleUpKind::nvswitch ? LinkClass::nvlink : LinkClass::pcie;
  g.link_class = g.nodes > 1 ? LinkClass::network : g.intra_class;
  return g;
}

Bandwidth CollectiveCost::intra_bandwidth() const {
  const NodeSpec& n = topo_.node();
  return n.scale_up.kind == ScaleUpKind::nvswitch ? n.scale_up.link.effective() : n.pcie.gpu_link.effective();
}

Bandwidth CollectiveCost::nic_bandwidth() const {
  const Bandwidth nic = topo_.node().nic_spec.link.effective();
  const FabricSpec& f = topo_.fabric();
  return f.kind == FabricKind::none ? nic : std::min(nic, f.link.effective());
}

CollectiveCost::CollectiveCost(const Topology& topology, const CollectiveCalibration& calibration)
    : topo_(topology), calib_(calibration) {
  if (topo_.gpu_count() < 2) return;
  Router router(topo_);
  intra_latency_ = router.route(0, 1).latency;
  inter_latency_ = topo_.nodes() < 2 ? intra_latency_ : router.route(0, topo_.node().gpus).latency;
}

Time CollectiveCost::path_latency(bool inter) const { return inter ? inter_latency_ : intra_latency_; }

bool CollectiveCost::supports(CollectiveAlgorithm a, CollectiveKind k, const GroupShape& g) const {
  const bool reducing = k == CollectiveKind::all_reduce;
  const bool collective3 = reducing || k == CollectiveKind::all_gather || k == CollectiveKind::reduce_scatter;
  switch (a) {
    case CollectiveAlgorithm::automatic: return true;
    case CollectiveAlgorithm::ring: return true;
    case CollectiveAlgorithm::tree: return reducing && g.ranks > 1;
    case CollectiveAlgorithm::halving_doubling: return collective3 && g.ranks > 1;
    case CollectiveAlgorithm::hierarchical:
      return collective3 && g.nodes > 1 && g.per_node > 1 && g.uniform;
    case CollectiveAlgorithm::nvls:
      return reducing && topo_.node().scale_up.nvls && g.per_node > 1 && g.uniform;
    case CollectiveAlgorithm::in_network:
      return reducing && topo_.fabric().sharp && g.nodes > 1 && g.uniform;
  }
  return false;
}

double CollectiveCost::efficiency(CollectiveAlgorithm a, Bytes s, const GroupShape& g) const {
  return calib_.lookup(a, g.link_class, s).bandwidth_efficiency;
}

Time CollectiveCost::protocol_latency(CollectiveAlgorithm a, CollectiveKind k, Bytes s, const GroupShape& g) const {
  const int n = g.ranks, N = g.nodes, m = g.per_node;
  if (n <= 1) return Time::zero();
  const CalibrationPoint& own = calib_.lookup(a, g.link_class, s);
  // NCCL's per-step latencies are totals; the flows already carry the links' own latency, so only the excess
  // is added here (never negative).
  auto step = [&](LinkClass c) {
    const Time total = calib_.lookup(a, c, s).step_latency;
    const Time links = path_latency(c == LinkClass::network);
    return total > links ? total - links : Time::zero();
  };
  const LinkClass intra = g.intra_class;
  Time t = own.base_latency;
  switch (a) {
    case CollectiveAlgorithm::automatic:
    case CollectiveAlgorithm::ring:
    case CollectiveAlgorithm::hierarchical: {
      // NCCL: (nsteps - nInterSteps) intra + nInterSteps inter; all-reduce 2(n-1) steps, 2(N-1) inter.
      const int factor = k == CollectiveKind::all_reduce ? 2 : 1;
      const int steps = k == CollectiveKind::send_recv || k == CollectiveKind::all_to_all ? 1 : factor * (n - 1);
      const int inter = k == CollectiveKind::send_recv || k == CollectiveKind::all_to_all
                            ? (N > 1 ? 1 : 0)
                            : factor * (N - 1);
      const int intra_steps = a == CollectiveAlgorithm::hierarchical ? factor * (m - 1) : steps - inter;
      t += step(intra) * intra_steps + step(LinkClass::network) * inter;
      break;
    }
    case CollectiveAlgorithm::tree: {
      const int depth = N > 1 ? static_cast<int>(std::ceil(std::log2(N))) : 0;
      t += (step(intra) * (m - 1) + step(LinkClass::network) * depth) * 2;
      break;
    }
    case CollectiveAlgorithm::halving_doubling: {
      const int rounds = static_cast<int>(std::floor(std::log2(n)));
      const int intra_rounds = static_cast<int>(std::floor(std::log2(std::max(1, m))));
      const int factor = k == CollectiveKind::all_reduce ? 2 : 1;
      t += (step(intra) * intra_rounds + step(LinkClass::network) * (rounds - intra_rounds)) * factor;
      break;
    }
    case CollectiveAlgorithm::nvls:
      t += step(LinkClass::nvlink) + (N > 1 ? step(LinkClass::network) * 2 * (N - 1) : Time::zero());
      break;
    case CollectiveAlgorithm::in_network:
      t += step(LinkClass::network) + step(intra) * 2 * (m - 1);
      break;
  }
  return t;
}

// Bandwidth terms (S bytes, n ranks on N nodes with m per node, B intra link, b NIC port, efficiency e):
//   ring, one node:     all-reduce 2(n-1)/n S/B; all-gather, reduce-scatter (n-1)/n S/B; broadcast S/B.
//   ring, many nodes:   the same with B' = min(min(m, nics) b, B m/(m-1)): NCCL runs m rail-aligned channels,
//                       each crossing every node boundary once on its own NIC, and each GPU forwards m-1 of
//                       the m channels over NVLink.
//   tree (all-reduce):  every NIC and every chain link moves 2S/C per direction (C = m channels; interior
//                       in one tree, leaf in the other): 2S / min(C b, B).
//   halving-doubling:   sum over rounds of S/2^k over the link class of that round's partner distance.
//   hierarchical:       max of the NVLink reduce-scatter/all-gather (m-1)/m S/B and the per-rail all-reduce
//                       2(N-1)/N (S/m)/b (pipelined stages).
//   NVLS:               each GPU sends S and 1/m S into the switch and receives as much: (1+1/m) S/B; across
//                       nodes, plus a per-rail ring all-reduce of S/m.
//   in-network:         each rank's rail sends S/m into the switch tree and receives it back: (S/m)/b, and the
//                       intra-node reduce-scatter/all-gather as hierarchical.
//   all-to-all:         (m-1)/n S over NVLink and (n-m)/n S through the NIC, GPUs sharing NICs share them.
// Everything is divided by the calibrated efficiency e.
Time CollectiveCost::estimate(CollectiveAlgorithm a, CollectiveKind k, Bytes s, const GroupShape& g) const {
  const double S = s.value();
  const double n = g.ranks, N = g.nodes, m = g.per_node;
  if (g.ranks <= 1 && k != CollectiveKind::send_recv) return Time::zero();
  const double B = intra_bandwidth().value(), b = nic_bandwidth().value();
  const double nics = std::max(1, topo_.node().nic_spec.count);
  const double gpus_per_nic = std::max(1.0, topo_.node().gpus / nics);
  const double e = efficiency(a, s, g);
  const bool multi = g.nodes > 1;
  const double ring_bw = !multi ? B : std::min(std::min(m, nics) * b, m > 1 ? B * m / (m - 1) : 1e300);
  double seconds = 0;
  // Ring steps cost the mean edge latency of the ring: n - N intra-node edges and N node-crossing ones.
  const Time lat_links =
      multi && (a == CollectiveAlgorithm::ring || a == CollectiveAlgorithm::automatic || k != CollectiveKind::all_reduce)
          ? Time::from_seconds(((n - N) * path_latency(false).seconds() + N * path_latency(true).seconds()) / n)
          : path_latency(multi);
  double steps = 1;
  switch (k == CollectiveKind::all_reduce ? a : CollectiveAlgorithm::ring) {
    case CollectiveAlgorithm::automatic:
    case CollectiveAlgorithm::ring:
      switch (k) {
        case CollectiveKind::all_reduce: seconds = 2 * (n - 1) / n * S / ring_bw; steps = 2 * (n - 1); break;
        case CollectiveKind::all_gather:
        case CollectiveKind::reduce_scatter: seconds = (n - 1) / n * S / ring_bw; steps = n - 1; break;
        case CollectiveKind::broadcast:
        case CollectiveKind::reduce: seconds = S / ring_bw; steps = n - 1; break;
        case CollectiveKind::all_to_all:
          seconds = std::max((m - 1) / n * S / B, multi ? (n - m) / n * S * gpus_per_nic / b : 0.0);
          break;
        case CollectiveKind::send_recv: seconds = S / (multi ? b : B); break;
      }
      break;
    case CollectiveAlgorithm::tree:
      seconds = 2 * S / std::min(multi ? std::min(m, nics) * b : 1e300, B);
      steps = 2 * ((m - 1) + (multi ? std::ceil(std::log2(N)) : 0));
      break;
    case CollectiveAlgorithm::halving_doubling: {
      const int rounds = static_cast<int>(std::floor(std::log2(n)));
      for (int r = 0; r < rounds; ++r) {
        const double distance = std::pow(2.0, rounds - 1 - r);
        seconds += 2 * S / std::pow(2.0, r + 1) / (distance < m ? B : b / std::max(1.0, m / nics));
      }
      steps = 2 * rounds;
      break;
    }
    case CollectiveAlgorithm::hierarchical:
      seconds = std::max((m - 1) / m * S / B, 2 * (N - 1) / N * (S / m) / b);
      steps = 2 * (m - 1) + 2 * (N - 1);
      break;
    case CollectiveAlgorithm::nvls:
      seconds = std::max((1 + 1 / m) * S / B, multi ? 2 * (N - 1) / N * (S / m) / b : 0.0);
      steps = 2 + (multi ? 2 * (N - 1) : 0);
      break;
    case CollectiveAlgorithm::in_network:
      seconds = std::max(m > 1 ? 2 * (m - 1) / m * S / B : 0.0, (S / m) / b);
      steps = 2;
      break;
  }
  return Time::from_seconds(seconds / e) + lat_links * static_cast<std::int64_t>(steps) +
         protocol_latency(a == CollectiveAlgorithm::automatic ? CollectiveAlgorithm::ring : a, k, s, g);
}

CollectiveAlgorithm CollectiveCost::choose(CollectiveKind k, Bytes s, const GroupShape& g) const {
  if (k != CollectiveKind::all_reduce) return CollectiveAlgorithm::ring;
  CollectiveAlgorithm best = CollectiveAlgorithm::ring;
  Time best_t = estimate(best, k, s, g);
  for (CollectiveAlgorithm a : {CollectiveAlgorithm::tree, CollectiveAlgorithm::nvls, CollectiveAlgorithm::in_network}) {
    if (!supports(a, k, g)) continue;
    const Time t = estimate(a, k, s, g);
    if (t < best_t) {
      best = a;
      best_t = t;
    }
  }
  return best;
}

}  // namespace cs
