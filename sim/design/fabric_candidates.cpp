#include "sim/design/fabric_candidates.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>


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

std::vector<FabricCandidate> fabric_candidates(const FabricSpec& base, int nodes, const std::vector<int>& ocs_strides) {
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
  return out;
}

}  // namespace cs
