#include "sim/design/placement_optimiser.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "sim/scenario/runner.hpp"
#include "sim/topology/router.hpp"

namespace cs {
namespace {

/// Cost change of swapping the seats of nodes a and b: only pairs with a or b change.
double swap_delta(const NodeTraffic& t, const std::vector<double>& d, const std::vector<int>& order, int a, int b) {
  const int n = t.nodes;
  const int sa = order[static_cast<std::size_t>(a)], sb = order[static_cast<std::size_t>(b)];
  const auto D = [&](int x, int y) { return d[static_cast<std::size_t>(x * n + y)]; };
  double delta = 0;
  for (int k = 0; k < n; ++k) {
    if (k == a || k == b) continue;
    const int sk = order[static_cast<std::size_t>(k)];
    delta += (t.at(a, k) - t.at(b, k)) * (D(sb, sk) - D(sa, sk));
  }
  return delta;
}

/// Repeated passes of improving pairwise swaps.
void local_search(const NodeTraffic& t, const std::vector<double>& d, PlacementSolution& s) {
  const int n = t.nodes;
  for (bool improved = true; improved;) {
    improved = false;
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        ++s.moves;
        const double delta = swap_delta(t, d, s.order, a, b);
        if (delta < -1e-9 * std::max(1.0, s.cost)) {
          std::swap(s.order[static_cast<std::size_t>(a)], s.order[static_cast<std::size_t>(b)]);
          s.cost += delta;
          improved = true;
        }
      }
    }
  }
}

}  // namespace

std::vector<double> seat_distances(const Topology& topo) {
  const int n = topo.nodes();
  const int nics = topo.node().nic_spec.count;
  std::vector<double> d(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0.0);
  if (nics == 0 || topo.fabric().kind == FabricKind::none) return d;
  Router router(topo);
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      double sum = 0;
      int counted = 0;
      for (int i = 0; i < nics; ++i) {
        const int hops = router.fabric_distance(topo.nic_vertex(a, i), topo.nic_vertex(b, i));
        if (hops >= 0) {
          sum += hops;
          ++counted;
        }
      }
      const double v = counted > 0 ? sum / counted : 0.0;
      d[static_cast<std::size_t>(a * n + b)] = d[static_cast<std::size_t>(b * n + a)] = v;
    }
  }
  return d;
}

double placement_cost(const NodeTraffic& t, const std::vector<double>& d, const std::vector<int>& order) {
  double cost = 0;
  const int n = t.nodes;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      cost += t.at(a, b) * d[static_cast<std::size_t>(order[static_cast<std::size_t>(a)] * n + order[static_cast<std::size_t>(b)])];
    }
  }
  return cost;
}

PlacementSolution greedy_local_search(const NodeTraffic& t, const std::vector<double>& d) {
  const int n = t.nodes;
  std::vector<int> by_load(static_cast<std::size_t>(n));
  std::iota(by_load.begin(), by_load.end(), 0);
  std::vector<double> load(static_cast<std::size_t>(n), 0.0);
  for (int a = 0; a < n; ++a) for (int b = 0; b < n; ++b) load[static_cast<std::size_t>(a)] += t.at(a, b);
  std::stable_sort(by_load.begin(), by_load.end(), [&](int x, int y) { return load[static_cast<std::size_t>(x)] > load[static_cast<std::size_t>(y)]; });
  PlacementSolution s;
  s.order.assign(static_cast<std::size_t>(n), -1);
  std::vector<char> taken(static_cast<std::size_t>(n), 0);
  std::vector<int> placed;
  for (int node : by_load) {
    int best = -1;
    double best_cost = 0;
    for (int seat = 0; seat < n; ++seat) {
      if (taken[static_cast<std::size_t>(seat)]) continue;
      double c = 0;
      for (int q : placed) c += t.at(node, q) * d[static_cast<std::size_t>(seat * n + s.order[static_cast<std::size_t>(q)])];
      if (best < 0 || c < best_cost) {
        best = seat;
        best_cost = c;
      }
    }
    s.order[static_cast<std::size_t>(node)] = best;
    taken[static_cast<std::size_t>(best)] = 1;
    placed.push_back(node);
  }
  s.cost = placement_cost(t, d, s.order);
  local_search(t, d, s);
  s.cost = placement_cost(t, d, s.order);  // drop the running sum's rounding
  // The greedy start can lead local search into a worse basin than the order the job came in (a rail fabric
  // whose units already hold whole DP rings); searching from that order too, the better result is kept, so the
  // method never returns a placement costlier than the one it was given.
  PlacementSolution from_given;
  from_given.order.resize(static_cast<std::size_t>(n));
  std::iota(from_given.order.begin(), from_given.order.end(), 0);
  from_given.cost = placement_cost(t, d, from_given.order);
  local_search(t, d, from_given);
  from_given.cost = placement_cost(t, d, from_given.order);
  from_given.moves += s.moves;
  if (from_given.cost < s.cost) return from_given;
  s.moves = from_given.moves;
  return s;
}

PlacementSolution simulated_annealing(const NodeTraffic& t, const std::vector<double>& d, std::uint64_t seed,
                                      int moves_per_node) {
  const int n = t.nodes;
  PlacementSolution s;
  s.order.resize(static_cast<std::size_t>(n));
  std::iota(s.order.begin(), s.order.end(), 0);
  s.cost = placement_cost(t, d, s.order);
  if (n < 2) return s;
  std::mt19937_64 rng(seed);  // the engine's sequence is fixed by the standard; conversions below are ours
  const auto uniform = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  const auto pick = [&] { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  double mean = 0;
  for (int i = 0; i < 100; ++i) {
    const int a = pick(), b = pick();
    if (a != b) mean += std::abs(swap_delta(t, d, s.order, a, b));
  }
  mean /= 100.0;
  if (mean <= 0) return s;
  const std::int64_t moves = static_cast<std::int64_t>(moves_per_node) * n;
  const double t0 = mean, t1 = mean * 1e-3;
  const double cool = std::pow(t1 / t0, 1.0 / static_cast<double>(moves));
  double temp = t0;
  PlacementSolution best = s;
  for (std::int64_t m = 0; m < moves; ++m, temp *= cool) {
    const int a = pick(), b = pick();
    if (a == b) continue;
    ++s.moves;
    const double delta = swap_delta(t, d, s.order, a, b);
    if (delta <= 0 || uniform() < std::exp(-delta / temp)) {
      std::swap(s.order[static_cast<std::size_t>(a)], s.order[static_cast<std::size_t>(b)]);
      s.cost += delta;
      if (s.cost < best.cost) best = s;
    }
  }
  best.moves = s.moves;
  best.cost = placement_cost(t, d, best.order);
  return best;
}

RunResult run_with_placement(const Scenario& sc, RunResult megatron) {
  PlacementReport rep;
  rep.method = "greedy + local search";
  rep.step_time_default = megatron.step.step_time;
  rep.step_time = megatron.step.step_time;
  const Topology& topo = sc.topology;
  const int n = topo.nodes();
  const NodeTraffic traffic = node_traffic(sc.model, sc.plan, sc.training, topo.node().gpus, n);
  const std::vector<double> dist = seat_distances(topo);
  std::vector<int> identity(static_cast<std::size_t>(n));
  std::iota(identity.begin(), identity.end(), 0);
  rep.cost_default = placement_cost(traffic, dist, identity);
  const PlacementSolution best = greedy_local_search(traffic, dist);
  rep.cost = best.cost;
  std::vector<int> seats = topo.fabric().node_slots;
  if (seats.empty()) seats = identity;
  for (int k = 0; k < n; ++k) rep.node_slots.push_back(seats[static_cast<std::size_t>(best.order[static_cast<std::size_t>(k)])]);
  if (best.cost < rep.cost_default && topo.fabric().kind != FabricKind::ocs) {
    Scenario placed = sc;
    FabricSpec f = topo.fabric();
    f.node_slots = rep.node_slots;
    placed.topology = build_topology(topo.name(), topo.node(), f, n);
    RunResult r = run_scenario(placed);
    if (r.step.step_time < megatron.step.step_time) {
      rep.kept = true;
      rep.step_time = r.step.step_time;
      r.placement = rep;
      return r;
    }
  }
  megatron.warnings.push_back(
      best.cost < rep.cost_default
          ? "placement: optimise cut the traffic-weighted fabric cost but did not simulate faster; Megatron's order kept"
          : "placement: optimise found no placement with a lower traffic-weighted fabric cost; Megatron's order kept");
  megatron.placement = rep;
  return megatron;
}

}  // namespace cs
