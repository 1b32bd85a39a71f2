#include "sim/collectives/analytic_collectives.hpp"

#include <algorithm>

namespace cs {
namespace {

/// Alpha-beta time of one group of `n` ranks moving `s` bytes over links of bandwidth `b` and latency `a`.
Time ring_time(CollectiveKind k, int n, Bytes s, const LinkSpec& link) {
  if (n <= 1) return Time::zero();
  const std::int64_t steps = n - 1;
  switch (k) {
    case CollectiveKind::all_reduce:
      return Bytes{s.value() * 2.0 * static_cast<double>(steps) / n} / link.bandwidth + link.latency * (2 * steps);
    case CollectiveKind::all_gather:
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::all_to_all:
      return Bytes{s.value() * static_cast<double>(steps) / n} / link.bandwidth + link.latency * steps;
    case CollectiveKind::broadcast:
    case CollectiveKind::reduce:
      return s / link.bandwidth + link.latency * steps;
    case CollectiveKind::send_recv:
      return s / link.bandwidth + link.latency;
  }
  return Time::zero();
}

}  // namespace

Time AnalyticCollectives::duration(const CollectiveRequest& req) const {
  Time worst = Time::zero();
  const NodeSpec& node = topo_.node();
  const LinkSpec scale_out{Bandwidth{node.nic.bandwidth.value() * node.nics / node.gpus}, node.nic.latency};
  for (const auto& g : req.groups) {
    if (g.empty()) continue;
    const int first = topo_.node_of(g.front());
    const bool one_node = std::all_of(g.begin(), g.end(), [&](int r) { return topo_.node_of(r) == first; });
    const int n = req.kind == CollectiveKind::send_recv ? 2 : static_cast<int>(g.size());
    worst = std::max(worst, ring_time(req.kind, n, req.bytes, one_node ? node.gpu_link : scale_out));
  }
  return worst;
}

void AnalyticCollectives::start(const CollectiveRequest& req, std::function<void()> done) {
  engine_.schedule_in(duration(req), std::move(done));
}

std::string AnalyticCollectives::describe() const {
  return "analytic alpha-beta ring model (no link contention)";
}

}  // namespace cs
