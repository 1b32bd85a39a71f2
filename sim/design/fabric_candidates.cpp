#include "sim/design/fabric_candidates.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "sim/replay/rank_layout.hpp"

namespace cs {
namespace {

/// Adds `bytes` to the stride between the nodes of GPUs a and b (nothing inside a node).
void add_pair(std::map<int, double>& by_stride, int a, int b, int gpus_per_node, int nodes, double bytes) {
  const int na = a / gpus_per_node, nb = b / gpus_per_node;
  if (na == nb || nodes < 2) return;
  const int s = ((nb - na) % nodes + nodes) % nodes;
  by_stride[std::min(s, nodes - s)] += bytes;
}

/// A ring over `group` (NCCL's ring all-reduce / ring attention): each member sends `bytes` to the next.
void add_ring(std::map<int, double>& by_stride, const std::vector<int>& group, int gpn, int nodes, double bytes) {
  const std::size_t n = group.size();
  if (n < 2) return;
  for (std::size_t i = 0; i < n; ++i) add_pair(by_stride, group[i], group[(i + 1) % n], gpn, nodes, bytes);
}

}  // namespace

std::vector<StrideTraffic> stride_traffic(const ModelSpec& model, const ParallelPlan& plan,
                                          const TrainingConfig& training, int gpn, int nodes) {
  std::map<int, double> by_stride;
  const RankLayout layout(plan);
  const double micro_batches = static_cast<double>(training.micro_batches(plan));
  // One micro-batch's activations at a stage boundary: micro_batch x seq x hidden in bf16, split over TP with
  // sequence parallelism; forward and backward.
  const double act = static_cast<double>(training.micro_batch) * training.seq_len * static_cast<double>(model.hidden) *
                     2.0 / (plan.sequence_parallel ? plan.tp : 1);
  // Ring all-reduce of one rank's gradient shard: 2 (g - 1) / g of it to the next rank.
  const double grad = model.total_params() / (plan.tp * plan.pp) * (training.grad_reduce_in_fp32 ? 4.0 : 2.0);
  const int layers_per_stage = std::max(1, model.layers / std::max(1, plan.pp));
  for (int s = 0; s < plan.pp; ++s) {
    for (const auto& g : layout.dp_groups(s)) {
      const double n = static_cast<double>(g.size());
      add_ring(by_stride, g, gpn, nodes, 2.0 * (n - 1) / n * grad);
    }
    if (plan.cp > 1) {
      // Ring attention: each layer passes its key/value chunk around the ring, forward and backward.
      for (const auto& g : layout.cp_groups(s)) {
        add_ring(by_stride, g, gpn, nodes, 2.0 * 2.0 * act / plan.cp * layers_per_stage * micro_batches);
      }
    }
    if (plan.ep > 1 && model.top_k > 0) {
      // Dispatch and combine, forward and backward: top_k copies of each token, 1/ep of them to each peer.
      for (const auto& g : layout.ep_groups(s)) {
        const double per_pair = 4.0 * act * model.top_k / plan.ep * layers_per_stage * micro_batches;
        for (int a : g) for (int b : g) if (a < b) add_pair(by_stride, a, b, gpn, nodes, 2.0 * per_pair);
      }
    }
    if (s + 1 < plan.pp) {
      for (const auto& pr : layout.p2p_pairs(s, s + 1)) add_pair(by_stride, pr[0], pr[1], gpn, nodes, 2.0 * act * micro_batches);
    }
  }
  std::vector<StrideTraffic> out;
  for (const auto& [stride, bytes] : by_stride) out.push_back({stride, bytes});
  std::stable_sort(out.begin(), out.end(), [](const StrideTraffic& a, const StrideTraffic& b) { return a.bytes > b.bytes; });
  return out;
}

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
