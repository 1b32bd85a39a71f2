#include "sim/report/network_json.hpp"

namespace cs {

nlohmann::json link_report_json(const LinkReport& links) {
  nlohmann::json by_tier = nlohmann::json::array();
  for (const TierSummary& t : links.by_tier) {
    by_tier.push_back({{"tier", std::string(to_string(t.tier))},
                       {"channels_used", t.channels_used},
                       {"flows", t.flows},
                       {"bytes", t.bytes.value()},
                       {"busy_s_max", t.busy_max.seconds()},
                       {"busy_s_mean", t.busy_total.seconds() / t.channels_used},
                       {"peak_concurrent_flows", t.peak_concurrent_flows}});
  }
  nlohmann::json top = nlohmann::json::array();
  for (const LinkSummary& l : links.top_links) {
    top.push_back({{"link", l.link},
                   {"tier", std::string(to_string(l.tier))},
                   {"capacity_Bps", l.capacity.value()},
                   {"bytes", l.bytes.value()},
                   {"busy_s", l.busy.seconds()},
                   {"utilization", l.utilization},
                   {"peak_concurrent_flows", l.peak_concurrent_flows}});
  }
  return {{"by_tier", by_tier}, {"top_links", top}, {"channels_used", links.channels_used},
          {"flows_started", links.flows_started}, {"solves", links.solves},
          {"largest_component_flows", links.largest_component_flows}};
}

nlohmann::json network_json(const NetworkReport& r) {
  nlohmann::json j;
  j["backend"] = r.backend;
  j["description"] = r.description;
  j["algorithm_overrides"] = nlohmann::json::object();
  for (const auto& [k, a] : r.algorithm_overrides) j["algorithm_overrides"][k] = a;
  j["calibration"] = r.calibration;
  j["algorithms_used"] = r.algorithms_used;
  j["links"] = r.links ? link_report_json(*r.links) : nlohmann::json(nullptr);
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
