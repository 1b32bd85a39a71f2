// The network part of a run's result, as data: which backend and calibration ran, which algorithms the
// collectives used, and (for a model with links) per-link statistics. Gathered by observers while the replay
// runs (NetworkStatistics) and written out by the report layer (sim/report/network_json.hpp).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "sim/collectives/collective.hpp"
#include "sim/collectives/network_options.hpp"
#include "sim/network/link_statistics.hpp"

namespace cs {

struct NetworkReport {
  std::string backend;                                   ///< "flow-level max-min" or "analytic (no contention)"
  std::string description;                               ///< the model's describe()
  std::map<std::string, std::string> algorithm_overrides;  ///< collective kind -> algorithm, from the scenario
  std::string calibration;                               ///< where the calibration comes from
  std::map<std::string, long> algorithms_used;           ///< algorithm -> collectives that ran with it
  std::optional<LinkReport> links;                       ///< absent for a model without links
  bool operator==(const NetworkReport&) const = default;
};

/// Counts the algorithm of each collective a model starts.
class AlgorithmTally final : public CollectiveObserver {
 public:
  void on_collective_start(const CollectiveRequest& request, CollectiveAlgorithm algorithm) override;
  [[nodiscard]] const std::map<std::string, long>& counts() const noexcept { return counts_; }

 private:
  std::map<std::string, long> counts_;
};

/// Observes one model for its lifetime (its algorithm choices, and its links when it has any) and makes the
/// report. Construct it before the replay starts.
class NetworkStatistics {
 public:
  NetworkStatistics(CollectiveModel& model, const NetworkOptions& options);
  ~NetworkStatistics();
  NetworkStatistics(const NetworkStatistics&) = delete;
  NetworkStatistics& operator=(const NetworkStatistics&) = delete;

  /// The report at simulated time `now`; `elapsed` (the simulated span) turns busy time into utilisation.
  [[nodiscard]] NetworkReport report(Time now, Time elapsed) const;

 private:
  CollectiveModel& model_;
  const NetworkOptions& options_;
  AlgorithmTally tally_;
  std::unique_ptr<LinkStatistics> links_;
};

}  // namespace cs
