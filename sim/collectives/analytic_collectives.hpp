// The contention-free communication model: each group's collective takes the alpha-beta time of its algorithm
// (collective_cost.hpp) and concurrent collectives do not slow each other. Fast enough for searches over
// thousands of configurations; the flow-level model (flow_collectives.hpp) is the default.
//
// For a group of n ranks in one node, message S, per-link bandwidth B and per-step latency a (Thakur et al.
// 2005; NCCL's ring):
//   all-reduce      2(n-1)/n * S/B + 2(n-1) a
//   all-gather,
//   reduce-scatter  (n-1)/n * S/B + (n-1) a
//   broadcast, reduce  S/B + (n-1) a             (pipelined chain)
//   send/recv       S/B + a
// Groups spanning nodes use NCCL's rail-aligned channels (see collective_cost.cpp), and the tuner picks ring,
// tree, NVLS or in-network reduction by estimated time unless the request or the options say otherwise.
#pragma once

#include <map>
#include <string>

#include "sim/collectives/calibration.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/collectives/collective_cost.hpp"
#include "sim/topology/topology.hpp"

namespace cs {

class AnalyticCollectives final : public CollectiveModel {
 public:
  AnalyticCollectives(EventEngine& engine, const Topology& topology)
      : AnalyticCollectives(engine, topology, CollectiveCalibration::datasheet_defaults()) {}
  /// `algorithm`: per collective kind, the algorithm to run when the request says `automatic` (the scenario's
  /// `network.algorithms`); kinds not listed, or algorithms the group cannot run, go to the tuner.
  AnalyticCollectives(EventEngine& engine, const Topology& topology, CollectiveCalibration calibration,
                      std::map<CollectiveKind, CollectiveAlgorithm> algorithm = {});
  void start(const CollectiveRequest& req, std::function<void()> done) override;
  [[nodiscard]] std::string describe() const override;
  /// The modelled duration of `req`'s slowest group.
  [[nodiscard]] Time duration(const CollectiveRequest& req) const;
  /// The algorithm `req` runs with (override, default, or the tuner's choice) for its first group.
  [[nodiscard]] CollectiveAlgorithm algorithm_for(const CollectiveRequest& req) const;
  [[nodiscard]] std::string calibration_source() const override { return calib_.source(); }
  [[nodiscard]] const CollectiveCalibration& calibration() const noexcept { return calib_; }

 private:
  [[nodiscard]] CollectiveAlgorithm pick(const CollectiveRequest& req, const GroupShape& g) const;
  EventEngine& engine_;
  const Topology& topo_;
  CollectiveCalibration calib_;
  CollectiveCost cost_;
  std::map<CollectiveKind, CollectiveAlgorithm> algorithm_;
};

}  // namespace cs
