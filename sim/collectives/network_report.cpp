#include "sim/collectives/network_report.hpp"

namespace cs {

void AlgorithmTally::on_collective_start(const CollectiveRequest& /*request*/, CollectiveAlgorithm algorithm) {
  ++counts_[std::string(to_string(algorithm))];
}

NetworkStatistics::NetworkStatistics(CollectiveModel& model, const NetworkOptions& options)
    : model_(model), options_(options) {
  model_.add_observer(tally_);
  if (FlowNetwork* net = model_.flow_network()) links_ = std::make_unique<LinkStatistics>(*net);
}

NetworkStatistics::~NetworkStatistics() { model_.remove_observer(tally_); }

NetworkReport NetworkStatistics::report(Time now, Time elapsed) const {
  NetworkReport r;
  r.backend = std::string(to_string(options_.backend));
  r.description = model_.describe();
  for (const auto& [k, a] : options_.algorithm) r.algorithm_overrides[std::string(to_string(k))] = std::string(to_string(a));
  r.calibration = model_.calibration_source();
  r.algorithms_used = tally_.counts();
  if (links_) r.links = links_->report(now, elapsed, options_.top_links);
  return r;
}

}  // namespace cs
