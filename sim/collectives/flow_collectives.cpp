#include "sim/collectives/flow_collectives.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace cs {

FlowCollectives::FlowCollectives(EventEngine& engine, const Topology& topology, CollectiveCalibration calibration,
                                 FlowCollectiveOptions options)
    : engine_(engine), topo_(topology), router_(topology), calib_(std::move(calibration)), cost_(topo_, calib_),
      options_(std::move(options)), net_(engine, topology), planner_(topology, router_) {}

CollectiveAlgorithm FlowCollectives::pick(const CollectiveRequest& req, const GroupShape& g) const {
  CollectiveAlgorithm a = req.algorithm;
  if (a == CollectiveAlgorithm::automatic) {
    if (auto it = options_.algorithm.find(req.kind); it != options_.algorithm.end()) a = it->second;
  }
  if (a != CollectiveAlgorithm::automatic && cost_.supports(a, req.kind, g)) return a;
  return cost_.choose(req.kind, req.bytes, g);
}

CollectiveAlgorithm FlowCollectives::algorithm_for(const CollectiveRequest& req) const {
  if (req.groups.empty()) return CollectiveAlgorithm::ring;
  return pick(req, shape_of(topo_, req.groups.front()));
}

void FlowCollectives::start(const CollectiveRequest& req, std::function<void()> done) {
  std::uint32_t id;
  if (!free_runs_.empty()) {
    id = free_runs_.back();
    free_runs_.pop_back();
  } else {
    id = static_cast<std::uint32_t>(runs_.size());
    runs_.push_back(std::make_unique<Run>());
  }
  Run& run = *runs_[id];
  run.plan.clear();
  run.tail = Time::zero();
  run.phase = 0;
  run.outstanding = 0;
  run.done = std::move(done);
  bool counted = false;
  planner_.begin_request();
  for (const auto& group : req.groups) {
    if (group.size() < 2) continue;
    const GroupShape g = shape_of(topo_, group);
    const CollectiveAlgorithm a = pick(req, g);
    if (!counted) {
      notify_start(req, a);
      counted = true;
    }
    planner_.plan_group(run.plan, req.kind, a, group, g, req.bytes, cost_.efficiency(a, req.bytes, g),
                        req.bytes > options_.pipeline_threshold);
    Time tail = cost_.protocol_latency(a, req.kind, req.bytes, g);
    if (a == CollectiveAlgorithm::tree && g.ranks > 1) {
      // The tree's depth: its flows carry one hop's latency; a chunk crosses m-1 chain hops and log2(N) levels
      // up and again down.
      const int depth = g.nodes > 1 ? static_cast<int>(std::ceil(std::log2(g.nodes))) : 0;
      const Time intra = router_.route(group[0], group[1]).latency;
      const Time inter = g.nodes > 1 ? router_.route(0, topo_.node().gpus).latency : Time::zero();
      tail += (intra * (g.per_node - 1) + inter * depth) * 2;
    }
    run.tail = std::max(run.tail, tail);
  }
  start_phase(id);
}

void FlowCollectives::start_phase(std::uint32_t id) {
  Run& run = *runs_[id];
  const auto& phases = run.plan.phases;
  while (run.phase < phases.size() && phases[run.phase].empty()) ++run.phase;
  if (run.phase >= phases.size()) {
    std::function<void()> done = std::move(run.done);
    run.done = nullptr;
    free_runs_.push_back(id);
    engine_.schedule_in(run.tail, std::move(done));
    return;
  }
  const auto& flows = phases[run.phase];
  run.outstanding = flows.size();
  for (const PlannedFlow& f : flows) {
    net_.start(run.plan.route(f), f.bytes, f.latency, [this, id] { flow_done(id); }, f.bandwidth_factor);
  }
}

void FlowCollectives::flow_done(std::uint32_t id) {
  Run& run = *runs_[id];
  if (--run.outstanding > 0) return;
  ++run.phase;
  start_phase(id);
}

std::string FlowCollectives::describe() const {
  return "flow-level max-min network; algorithms by NCCL-like tuner unless overridden; calibration: " +
         calib_.source();
}

}  // namespace cs
