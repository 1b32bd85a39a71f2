#include "sim/collectives/network_options.hpp"

#include "sim/collectives/analytic_collectives.hpp"
#include "sim/collectives/flow_collectives.hpp"

namespace cs {

std::string_view to_string(NetworkBackend b) noexcept {
  return b == NetworkBackend::flow ? "flow-level max-min" : "analytic (no contention)";
}

namespace {
CollectiveCalibration calibration_for(const NetworkOptions& o) {
  if (o.calibration == "datasheet") return CollectiveCalibration::datasheet_defaults();
  if (o.calibration == "ideal") return CollectiveCalibration::ideal();
  return CollectiveCalibration::load_csv(o.calibration);
}
}  // namespace

std::unique_ptr<CollectiveModel> make_collective_model(EventEngine& engine, const Topology& topology,
                                                       const NetworkOptions& options) {
  if (options.backend == NetworkBackend::analytic) {
    auto m = std::make_unique<AnalyticCollectives>(engine, topology, calibration_for(options));
    return m;
  }
  FlowCollectiveOptions fo;
  fo.algorithm = options.algorithm;
  fo.pipeline_threshold = options.pipeline_threshold;
  return std::make_unique<FlowCollectives>(engine, topology, calibration_for(options), fo);
}

}  // namespace cs
