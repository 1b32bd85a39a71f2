#include "sim/collectives/network_options.hpp"

#include "sim/collectives/analytic_collectives.hpp"
#include "sim/collectives/flow_collectives.hpp"
#include "sim/network/link_statistics.hpp"

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

nlohmann::json network_json(const CollectiveModel& model, const NetworkOptions& options, Time elapsed) {
  nlohmann::json j;
  j["backend"] = std::string(to_string(options.backend));
  j["description"] = model.describe();
  nlohmann::json overrides = nlohmann::json::object();
  for (const auto& [k, a] : options.algorithm) overrides[std::string(to_string(k))] = std::string(to_string(a));
  j["algorithm_overrides"] = overrides;
  if (const auto* flow = dynamic_cast<const FlowCollectives*>(&model)) {
    j["calibration"] = flow->calibration().source();
    j["algorithms_used"] = flow->algorithms_used();
    j["links"] = link_statistics_json(flow->network(), elapsed, options.top_links);
  } else if (const auto* analytic = dynamic_cast<const AnalyticCollectives*>(&model)) {
    j["calibration"] = analytic->calibration().source();
    j["algorithms_used"] = analytic->algorithms_used();
    j["links"] = nullptr;  // the analytic model has no links
  }
  return j;
}

nlohmann::json fabric_inventory_json(const FabricInventory& inv) {
  nlohmann::json switches = nlohmann::json::array(), cables = nlohmann::json::array();
  for (const auto& s : inv.switches) {
    switches.push_back({{"tier", s.tier}, {"model", s.model}, {"radix", s.radix}, {"count", s.count},
                        {"ports_used", s.ports_used}});
  }
  for (const auto& c : inv.cables) {
    cables.push_back({{"tier", c.tier}, {"cables", c.cables}, {"medium", c.optical ? "optical" : "copper"},
                      {"speed_Bps", c.speed.value()}, {"node_transceivers", c.node_transceivers},
                      {"switch_transceivers", c.switch_transceivers}});
  }
  return {{"node_model", inv.node_model}, {"fabric", inv.fabric_kind}, {"technology", inv.technology},
          {"nodes", inv.nodes}, {"gpus", inv.gpus}, {"nics", inv.nics}, {"scalable_units", inv.scalable_units},
          {"switches", switches}, {"cables", cables}};
}

}  // namespace cs
