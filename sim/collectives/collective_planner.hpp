// Planning a collective: a pure step from a topology and a group of GPUs to phases of flows (routes with a
// payload, a latency and a rate bound), with no engine and no network state. The flow-level collective model
// (flow_collectives.hpp) runs the phases on the max-min network; tests inspect them directly.
//
// A pipelined algorithm is planned as its steady state, not chunk by chunk: a ring all-reduce is one flow per
// ring edge carrying everything that edge carries over all 2(n-1) steps (2(n-1)/n * S / channels), with the
// latency of 2(n-1) steps; a pipelined hierarchical all-reduce runs its three stages as concurrent flows.
// Algorithms whose rounds depend on each other (halving-doubling, unpipelined hierarchical) get one phase per
// round.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "sim/collectives/collective.hpp"
#include "sim/collectives/collective_cost.hpp"
#include "sim/topology/router.hpp"

namespace cs {

/// One flow of a plan: its route is `length` channels of FlowPlan::channels from `offset`.
struct PlannedFlow {
  std::uint32_t offset = 0;
  std::uint32_t length = 0;
  Bytes bytes;                    ///< payload
  Time latency;                   ///< path latency x the algorithm's sequential steps
  double bandwidth_factor = 1.0;  ///< calibration: rate bound = factor x the route's narrowest link
};

/// A collective as phases of flows: the flows of a phase run concurrently; a phase starts when the one before
/// it has finished.
struct FlowPlan {
  std::vector<ChannelId> channels;  ///< every flow's route, back to back
  std::vector<std::vector<PlannedFlow>> phases;

  [[nodiscard]] std::span<const ChannelId> route(const PlannedFlow& f) const {
    return {channels.data() + f.offset, f.length};
  }
  [[nodiscard]] std::size_t flow_count() const noexcept {
    std::size_t n = 0;
    for (const auto& p : phases) n += p.size();
    return n;
  }
  void clear() {
    channels.clear();
    phases.clear();
  }
};

/// Plans the groups of collective requests on one topology with one simulation's router. It keeps the state
/// that in-network reduction (SHARP) needs: the top-tier switches (found once) and, within one request, how
/// many aggregation trees already use each leaf uplink, so concurrent groups get balanced roots.
class CollectivePlanner {
 public:
  CollectivePlanner(const Topology& topology, Router& router) : topo_(topology), router_(router) {}

  /// Starts a new request: forgets the tree loads of the previous one.
  void begin_request() { sharp_load_.clear(); }
  /// Appends to `plan` the flows of `group` (shape `g`) running `kind` on `bytes` with algorithm `a`.
  /// All-to-all and send/recv have one form whatever `a` says. `pipelined`: hierarchical stages overlap.
  void plan_group(FlowPlan& plan, CollectiveKind kind, CollectiveAlgorithm a, const std::vector<int>& group,
                  const GroupShape& g, Bytes bytes, double bandwidth_factor, bool pipelined);

 private:
  const Topology& topo_;
  Router& router_;
  std::vector<VertexId> sharp_roots_;
  std::map<ChannelId, int> sharp_load_;
};

}  // namespace cs
