// Prices the short collectives inside a replay unit (TP, CP and EP) before the step is replayed. Node-local
// groups (TP on NVLink, an expert group inside a node) do not share links with each other, so the
// contention-free closed form prices them (AnalyticCollectives). A collective whose groups cross nodes - an EP
// all-to-all over 8 nodes, a CP ring across nodes - runs in lockstep on every group of the stage at once and
// shares the fabric's links: with the flow backend it is simulated once, all its groups together, on the
// flow-level network (a fresh engine per distinct request, memoised), so oversubscription and rail crossings
// act on it as they do on the DP and PP traffic.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "sim/collectives/network_options.hpp"

namespace cs {

class UnitCollectiveEstimator {
 public:
  UnitCollectiveEstimator(const Topology& topology, NetworkOptions options);
  UnitCollectiveEstimator(const UnitCollectiveEstimator&) = delete;
  UnitCollectiveEstimator& operator=(const UnitCollectiveEstimator&) = delete;

  /// The time of `req` with all of its groups running at once (see above).
  [[nodiscard]] Time duration(const CollectiveRequest& req);
  /// Requests priced on the flow-level network so far (distinct ones; for tests and reports).
  [[nodiscard]] std::size_t contended_requests() const noexcept { return memo_.size(); }

 private:
  [[nodiscard]] bool crosses_nodes(const CollectiveRequest& req) const;

  const Topology& topo_;
  NetworkOptions options_;
  EventEngine unused_engine_;  // the analytic estimator's (its durations never touch the engine)
  std::unique_ptr<AnalyticCollectives> analytic_;
  std::map<std::tuple<int, double, int, std::size_t, std::string>, Time> memo_;
};

}  // namespace cs
