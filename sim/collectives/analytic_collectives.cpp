#include "sim/collectives/analytic_collectives.hpp"

#include <algorithm>

namespace cs {

AnalyticCollectives::AnalyticCollectives(EventEngine& engine, const Topology& topology,
                                         CollectiveCalibration calibration,
                                         std::map<CollectiveKind, CollectiveAlgorithm> algorithm)
    : engine_(engine), topo_(topology), calib_(std::move(calibration)), cost_(topo_, calib_),
      algorithm_(std::move(algorithm)) {}

CollectiveAlgorithm AnalyticCollectives::pick(const CollectiveRequest& req, const GroupShape& g) const {
  CollectiveAlgorithm a = req.algorithm;
  if (a == CollectiveAlgorithm::automatic) {
    if (auto it = algorithm_.find(req.kind); it != algorithm_.end()) a = it->second;
  }
  if (a != CollectiveAlgorithm::automatic && cost_.supports(a, req.kind, g)) return a;
  return cost_.choose(req.kind, req.bytes, g);
}

CollectiveAlgorithm AnalyticCollectives::algorithm_for(const CollectiveRequest& req) const {
  if (req.groups.empty()) return CollectiveAlgorithm::ring;
  return pick(req, shape_of(topo_, req.groups.front()));
}

Time AnalyticCollectives::duration(const CollectiveRequest& req) const {
  Time worst = Time::zero();
  for (const auto& group : req.groups) {
    if (group.empty()) continue;
    const GroupShape g = shape_of(topo_, group);
    worst = std::max(worst, cost_.estimate(pick(req, g), req.kind, req.bytes, g));
  }
  return worst;
}

void AnalyticCollectives::start(const CollectiveRequest& req, std::function<void()> done) {
  notify_start(req, algorithm_for(req));
  engine_.schedule_in(duration(req), std::move(done));
}

std::string AnalyticCollectives::describe() const {
  return "analytic alpha-beta model (no link contention); algorithms by NCCL-like tuner; calibration: " +
         calib_.source();
}

}  // namespace cs
