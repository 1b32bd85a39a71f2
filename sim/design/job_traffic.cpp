#include "sim/design/job_traffic.hpp"

#include <algorithm>
#include <map>

#include "sim/replay/rank_layout.hpp"

namespace cs {
namespace {

struct TrafficAdder {
  NodeTraffic& t;
  int gpn;
  void pair(int a, int b, double bytes) const {
    const int na = a / gpn, nb = b / gpn;
    if (na == nb) return;
    t.bytes[static_cast<std::size_t>(na * t.nodes + nb)] += bytes;
    t.bytes[static_cast<std::size_t>(nb * t.nodes + na)] += bytes;
  }
  /// A ring over `group`: each member sends `bytes` to the next.
  void ring(const std::vector<int>& group, double bytes) const {
    const std::size_t n = group.size();
    if (n < 2) return;
    for (std::size_t i = 0; i < n; ++i) pair(group[i], group[(i + 1) % n], bytes);
  }
};

}  // namespace

NodeTraffic node_traffic(const ModelSpec& model, const ParallelPlan& plan, const TrainingConfig& training, int gpn,
                         int nodes) {
  NodeTraffic t{nodes, std::vector<double>(static_cast<std::size_t>(nodes) * static_cast<std::size_t>(nodes), 0.0)};
  const TrafficAdder add{t, gpn};
  const RankLayout layout(plan);
  const double micro_batches = static_cast<double>(training.micro_batches(plan));
  // One micro-batch's activations at a stage boundary: micro_batch x seq x hidden in bf16, split over TP with
  // sequence parallelism.
  const double act = static_cast<double>(training.micro_batch) * training.seq_len * static_cast<double>(model.hidden) *
                     2.0 / (plan.sequence_parallel ? plan.tp : 1);
  const double grad = model.total_params() / (plan.tp * plan.pp) * (training.grad_reduce_in_fp32 ? 4.0 : 2.0);
  const int layers_per_stage = std::max(1, model.layers / std::max(1, plan.pp));
  for (int s = 0; s < plan.pp; ++s) {
    for (const auto& g : layout.dp_groups(s)) {
      const double n = static_cast<double>(g.size());
      add.ring(g, 2.0 * (n - 1) / n * grad);
    }
    if (plan.cp > 1) {
      for (const auto& g : layout.cp_groups(s)) add.ring(g, 2.0 * 2.0 * act / plan.cp * layers_per_stage * micro_batches);
    }
    if (plan.ep > 1 && model.top_k > 0) {
      const double per_pair = 2.0 * 2.0 * act * model.top_k / plan.ep * layers_per_stage * micro_batches;
      for (const auto& g : layout.ep_groups(s)) {
        for (int a : g) for (int b : g) if (a < b) add.pair(a, b, per_pair);
      }
    }
    if (s + 1 < plan.pp) {
      for (const auto& pr : layout.p2p_pairs(s, s + 1)) add.pair(pr[0], pr[1], 2.0 * act * micro_batches);
    }
  }
  return t;
}

std::vector<StrideTraffic> stride_traffic(const NodeTraffic& t) {
  std::map<int, double> by_stride;
  for (int a = 0; a < t.nodes; ++a) {
    for (int b = a + 1; b < t.nodes; ++b) {
      if (t.at(a, b) <= 0) continue;
      const int s = b - a;
      by_stride[std::min(s, t.nodes - s)] += t.at(a, b);
    }
  }
  std::vector<StrideTraffic> out;
  for (const auto& [stride, bytes] : by_stride) out.push_back({stride, bytes});
  std::stable_sort(out.begin(), out.end(), [](const StrideTraffic& a, const StrideTraffic& b) { return a.bytes > b.bytes; });
  return out;
}

}  // namespace cs
