// Collectives as flow schedules on the flow-level network: each algorithm becomes phases of flows between GPUs
// (or GPUs and switches, for NVLS and in-network reduction), and concurrent collectives share the links.
//
// A pipelined algorithm is modelled as its steady state, not chunk by chunk: a ring all-reduce is one flow per
// ring edge carrying everything that edge carries over all 2(n-1) steps (2(n-1)/n * S / channels), with the
// latency of 2(n-1) steps; a pipelined hierarchical all-reduce runs its three stages as concurrent flows. So a
// 1,024-GPU ring all-reduce on a DGX SuperPOD is 8 channels x 1,024 edges = 8,192 flows, solved once. Algorithms
// whose rounds depend on each other (halving-doubling, unpipelined hierarchical) run phase after phase.
//
// Time of a collective = the flows (path latency x steps, then the payload at the max-min fair rate, each flow
// bounded by the calibrated bandwidth efficiency x its route's narrowest link) + the calibrated protocol
// latency (base + per-step latencies, calibration.hpp). The calibration bounds rates; it never inflates bytes,
// so link statistics report the real payload.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/collectives/calibration.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/collectives/collective_cost.hpp"
#include "sim/network/flow_network.hpp"
#include "sim/topology/router.hpp"

namespace cs {

struct FlowCollectiveOptions {
  /// Default algorithm per collective kind; `automatic` (the default) defers to the tuner.
  std::map<CollectiveKind, CollectiveAlgorithm> algorithm;
  /// Messages larger than this are pipelined (hierarchical stages overlap); smaller ones run stage by stage.
  Bytes pipeline_threshold{4.0 * 1024 * 1024};
};

class FlowCollectives final : public CollectiveModel {
 public:
  FlowCollectives(EventEngine& engine, const Topology& topology, CollectiveCalibration calibration,
                  FlowCollectiveOptions options = {});
  void start(const CollectiveRequest& req, std::function<void()> done) override;
  [[nodiscard]] std::string describe() const override;

  [[nodiscard]] std::string calibration_source() const override { return calib_.source(); }
  [[nodiscard]] FlowNetwork* flow_network() noexcept override { return &net_; }

  [[nodiscard]] const FlowNetwork& network() const noexcept { return net_; }
  [[nodiscard]] const CollectiveCalibration& calibration() const noexcept { return calib_; }
  /// The algorithm `req`'s first group runs with.
  [[nodiscard]] CollectiveAlgorithm algorithm_for(const CollectiveRequest& req) const;

 private:
  struct PlannedFlow {
    std::uint32_t offset;     // route: run.channels[offset, offset + length)
    std::uint32_t length;
    Bytes bytes;              // payload
    Time latency;
    double bandwidth_factor;  // calibration: rate bound = factor x the route's narrowest link
  };
  struct Run {
    std::vector<ChannelId> channels;
    std::vector<std::vector<PlannedFlow>> phases;
    Time tail;  // protocol latency after the last phase
    std::size_t phase = 0;
    std::size_t outstanding = 0;
    std::function<void()> done;
  };
  class Planner;

  [[nodiscard]] CollectiveAlgorithm pick(const CollectiveRequest& req, const GroupShape& g) const;
  void start_phase(std::uint32_t run);
  void flow_done(std::uint32_t run);

  EventEngine& engine_;
  const Topology& topo_;
  Router router_;  // this simulation's routes
  CollectiveCalibration calib_;
  CollectiveCost cost_;
  FlowCollectiveOptions options_;
  FlowNetwork net_;
  std::vector<std::unique_ptr<Run>> runs_;
  std::vector<std::uint32_t> free_runs_;
  std::vector<VertexId> sharp_roots_;
  std::map<ChannelId, int> sharp_load_;
};

}  // namespace cs
