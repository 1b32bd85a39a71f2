#include "sim/collectives/network_options.hpp"

#include "sim/collectives/analytic_collectives.hpp"
#include "sim/collectives/flow_collectives.hpp"

namespace cs {

std::string_view to_string(NetworkBackend b) noexcept {
  return b == NetworkBackend::flow ? "flow-level max-min" : "analytic (no contention)";
}

CollectiveCalibration collective_calibration(const NetworkOptions& o) {
  if (o.calibration == "datasheet") return CollectiveCalibration::datasheet_defaults();
  if (o.calibration == "ideal") return CollectiveCalibration::ideal();
  return CollectiveCalibration::load_csv(o.calibration);
}

std::unique_ptr<AnalyticCollectives> make_collective_estimator(EventEngine& engine, const Topology& topology,
                                                               const NetworkOptions& options) {
  return std::make_unique<AnalyticCollectives>(engine, topology, collective_calibration(options), options.algorithm);
}

std::unique_ptr<CollectiveModel> make_collective_model(EventEngine& engine, const Topology& topology,
                                                       const NetworkOptions& options) {
  if (options.backend == NetworkBackend::analytic) {
    return make_collective_estimator(engine, topology, options);
  }
  FlowCollectiveOptions fo;
  fo.algorithm = options.algorithm;
  fo.pipeline_threshold = options.pipeline_threshold;
  return std::make_unique<FlowCollectives>(engine, topology, collective_calibration(options), fo);
}

}  // namespace cs
