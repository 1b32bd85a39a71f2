// Collectives as flow schedules on the flow-level network: the CollectivePlanner (collective_planner.hpp) turns
// each algorithm into phases of flows between GPUs (or GPUs and switches, for NVLS and in-network reduction);
// this model runs them phase after phase on the max-min network, where concurrent collectives share the links.
// A 1,024-GPU ring all-reduce on a DGX SuperPOD is 8 channels x 1,024 edges = 8,192 flows, solved once.
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
#include "sim/collectives/collective_planner.hpp"
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
  struct Run {
    FlowPlan plan;
    Time tail;  // protocol latency after the last phase
    std::size_t phase = 0;
    std::size_t outstanding = 0;
    std::function<void()> done;
  };
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
  CollectivePlanner planner_;  // after router_, which it uses
};

}  // namespace cs
