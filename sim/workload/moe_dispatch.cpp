#include "sim/workload/moe_dispatch.hpp"

#include <algorithm>

namespace cs {

namespace {

/// C(a, k) / C(b, k): the chance that k distinct picks among b items all avoid b - a given ones.
double none_of(double a, double b, int k) {
  double p = 1.0;
  for (int i = 0; i < k; ++i) p *= std::max(0.0, a - i) / (b - i);
  return p;
}

}  // namespace

DispatchFanout dispatch_fanout(const ModelSpec& m, int ep, int nodes) {
  DispatchFanout f;
  if (!m.is_moe() || ep <= 0 || nodes <= 0) return f;
  const double E = m.experts, per_gpu = E / ep, per_node = E / nodes;
  const int k = m.top_k;
  if (m.router_groups > 0) {
    // A token's experts come from its router_group_topk best groups (router_group_topk x experts/groups
    // experts). Groups that each fill whole nodes: a node is visited when one of its groups is chosen.
    const double g = m.router_groups, t = m.router_group_topk, pool = t * E / g;
    if (m.router_groups % nodes == 0) {
      f.remote_nodes = (nodes - 1) * (1.0 - none_of(g - g / nodes, g, m.router_group_topk));
    } else {
      // Otherwise the groups cap the nodes a token reaches: t of them if a group sits within a node (g >= nodes),
      // t x nodes / g if each spans several.
      const double reach = m.router_groups >= nodes ? std::min<double>(nodes, t) : t * nodes / g;
      f.remote_nodes = std::min((nodes - 1) * (1.0 - none_of(E - per_node, E, k)), reach * (nodes - 1.0) / nodes);
    }
    f.gpus = pool / per_gpu * (1.0 - none_of(pool - per_gpu, pool, k));
  } else {
    f.remote_nodes = (nodes - 1) * (1.0 - none_of(E - per_node, E, k));
    f.gpus = ep * (1.0 - none_of(E - per_gpu, E, k));
  }
  return f;
}

}  // namespace cs
