#include "sim/collectives/unit_collective_estimator.hpp"

#include <set>

namespace cs {

UnitCollectiveEstimator::UnitCollectiveEstimator(const Topology& topology, NetworkOptions options)
    : topo_(topology),
      options_(std::move(options)),
      analytic_(make_collective_estimator(unused_engine_, topology, options_)) {}

bool UnitCollectiveEstimator::crosses_nodes(const CollectiveRequest& req) const {
  for (const auto& group : req.groups) {
    std::set<int> nodes;
    for (const int r : group) nodes.insert(topo_.node_of(r));
    if (nodes.size() > 1) return true;
  }
  return false;
}

Time UnitCollectiveEstimator::duration(const CollectiveRequest& req) {
  if (options_.backend != NetworkBackend::flow || !crosses_nodes(req)) return analytic_->duration(req);
  // Within one simulation the groups of an op are fixed, so kind, size, first rank, group count and label name
  // the request.
  const int first = req.groups.empty() || req.groups.front().empty() ? -1 : req.groups.front().front();
  const auto key = std::tuple{static_cast<int>(req.kind), req.bytes.value(), first, req.groups.size(), req.label};
  if (const auto it = memo_.find(key); it != memo_.end()) return it->second;
  EventEngine engine;
  const std::unique_ptr<CollectiveModel> fabric = make_collective_model(engine, topo_, options_);
  Time end = Time::zero();
  fabric->start(req, [&] { end = engine.now(); });
  engine.run();
  memo_.emplace(key, end);
  return end;
}

}  // namespace cs
