#include "sim/design/fabric_candidates.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <queue>
#include <tuple>


namespace cs {
std::vector<int> choose_ocs_strides(const std::vector<StrideTraffic>& traffic, int port_pairs, int nodes) {
  std::vector<int> strides;
  if (nodes < 2 || port_pairs < 1) return strides;
  for (const StrideTraffic& t : traffic) {
    if (static_cast<int>(strides.size()) == port_pairs) break;
    strides.push_back(t.stride);
  }
  // Connected iff gcd(strides..., nodes) == 1; otherwise stride 1 takes the last place (or a free one), so that
  // traffic the matrix missed (a new job, the optimizer's gathers) still has a path.
  int g = nodes;
  for (int s : strides) g = std::gcd(g, s);
  if (g != 1) {
    if (static_cast<int>(strides.size()) == port_pairs) strides.back() = 1;
    else strides.push_back(1);
  }
  return strides;
}

std::vector<std::pair<int, int>> choose_ocs_circuits(const NodeTraffic& t, int ports) {
  const int n = t.nodes;
  std::vector<std::pair<int, int>> out;
  if (n < 2 || ports < 2) return out;
  std::vector<int> free(static_cast<std::size_t>(n), ports);
  std::map<std::pair<int, int>, int> count;
  const auto add = [&](int a, int b) {
    out.emplace_back(std::min(a, b), std::max(a, b));
    ++count[out.back()];
    --free[static_cast<std::size_t>(a)];
    --free[static_cast<std::size_t>(b)];
  };
  for (int k = 0; k < n; ++k) add(k, (k + 1) % n);
  // Every pair that talks gets a circuit first, heaviest first (a pair left to the ring would forward through up
  // to n/2 nodes); then greedy by bytes per circuit: (key, a, b), largest first, ties to the lower pair.
  std::vector<std::tuple<double, int, int>> talking;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      if (t.at(a, b) > 0) talking.emplace_back(t.at(a, b), -a, -b);
    }
  }
  std::sort(talking.begin(), talking.end(), std::greater<>());
  for (const auto& [bytes, na, nb] : talking) {
    const int a = -na, b = -nb;
    if (count[{a, b}] == 0 && free[static_cast<std::size_t>(a)] > 0 && free[static_cast<std::size_t>(b)] > 0) add(a, b);
  }
  std::priority_queue<std::tuple<double, int, int>> queue;
  for (const auto& [bytes, na, nb] : talking) queue.emplace(bytes / (count[{-na, -nb}] + 1), na, nb);
  while (!queue.empty()) {
    const auto [key, na, nb] = queue.top();
    queue.pop();
    const int a = -na, b = -nb;
    if (free[static_cast<std::size_t>(a)] == 0 || free[static_cast<std::size_t>(b)] == 0) continue;
    add(a, b);
    queue.emplace(t.at(a, b) / (count[{a, b}] + 1), na, nb);
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (int k = 0; k < n; ++k) {
      const int j = (k + 1) % n;
      if (j != k && free[static_cast<std::size_t>(k)] > 0 && free[static_cast<std::size_t>(j)] > 0) {
        add(k, j);
        grew = true;
      }
    }
  }
  return out;
}

std::vector<FabricCandidate> fabric_candidates(const FabricSpec& base, int nodes, const std::vector<int>& ocs_strides,
                                               const std::vector<std::pair<int, int>>& ocs_circuits) {
  std::vector<FabricCandidate> out;
  auto with = [&](FabricKind kind) {
    FabricSpec f = base;
    f.kind = kind;
    f.oversubscription = {1.0, 1.0};
    f.tiers = 0;
    f.torus_dims.clear();
    f.sharp = base.sharp && (kind == FabricKind::fat_tree || kind == FabricKind::rail_optimized);
    return f;
  };
  for (int tiers : {2, 3}) {
    for (double o : {1.0, 2.0, 4.0}) {
      FabricSpec f = with(FabricKind::fat_tree);
      f.oversubscription = {o, 1.0};
      f.tiers = tiers;
      out.push_back({"fat-tree", "fat-tree " + std::to_string(tiers) + "-tier " + std::to_string(static_cast<int>(o)) + ":1", o, f});
    }
  }
  out.push_back({"rail-optimized", "rail-optimized 1:1", 1.0, with(FabricKind::rail_optimized)});
  out.push_back({"rail-only", "rail-only (Wang et al. 2023)", 1.0, with(FabricKind::rail_only)});
  if (nodes > 1) out.push_back({"torus", "2-D torus", 1.0, with(FabricKind::torus)});
  if (nodes > 1 && (nodes & (nodes - 1)) == 0) out.push_back({"hypercube", "hypercube", 1.0, with(FabricKind::hypercube)});
  out.push_back({"dragonfly", "dragonfly (minimal routing)", 1.0, with(FabricKind::dragonfly)});
  FabricSpec ocs = with(FabricKind::ocs);
  ocs.ocs_shifts = ocs_strides;
  ocs.ocs_reconfiguration = base.ocs_reconfiguration;
  std::string strides;
  for (int s : ocs_strides) strides += (strides.empty() ? "" : ",") + std::to_string(s);
  if (nodes > 1) out.push_back({"ocs", "OCS circuits, strides " + (strides.empty() ? std::string("1") : strides), 1.0, ocs});
  if (nodes > 1 && !ocs_circuits.empty()) {
    FabricSpec matched = ocs;
    matched.ocs_shifts.clear();
    matched.ocs_circuits = ocs_circuits;
    out.push_back({"ocs", "OCS circuits matched to traffic", 1.0, matched});
  }
  return out;
}

}  // namespace cs
