#include "sim/collectives/network_options.hpp"

#include "sim/collectives/analytic_collectives.hpp"
#include "sim/collectives/flow_collectives.hpp"

namespace cs {

std::string_view to_string(NetworkBackend b) noexcept {
  return b == NetworkBackend::flow ? "flow-level max-min" : "analytic (no contention)";
}

NetworkOptions parse_network_options(const InputNode& section) {
  NetworkOptions o;
  if (auto b = section.find("backend")) {
    const std::string s = b->as<std::string>();
    if (s == "flow") {
      o.backend = NetworkBackend::flow;
    } else if (s == "analytic") {
      o.backend = NetworkBackend::analytic;
    } else {
      b->fail("unknown backend \"" + s + "\" (expected flow or analytic)");
    }
  }
  if (auto algs = section.find("algorithms")) {
    algs->require(algs->is_map(), "expected a mapping of collective kind to algorithm");
    for (CollectiveKind k : {CollectiveKind::all_reduce, CollectiveKind::all_gather, CollectiveKind::reduce_scatter,
                             CollectiveKind::broadcast, CollectiveKind::reduce, CollectiveKind::all_to_all,
                             CollectiveKind::send_recv}) {
      std::string key(to_string(k));
      for (char& c : key) {
        if (c == '-' || c == '/') c = '_';
      }
      if (auto a = algs->find(key)) {
        const auto parsed = parse_algorithm(a->as<std::string>());
        if (!parsed) {
          a->fail("unknown algorithm \"" + a->as<std::string>() +
                  "\" (expected auto, ring, tree, halving_doubling, hierarchical, nvls or in_network)");
        }
        o.algorithm[k] = *parsed;
      }
    }
    algs->finish();
  }
  if (auto c = section.find("calibration")) {
    o.calibration = c->as<std::string>();
    if (o.calibration != "datasheet" && o.calibration != "ideal") {
      // Validate now, so a missing file is reported before anything runs.
      try {
        (void)CollectiveCalibration::load_csv(o.calibration);
      } catch (const InputError& e) {
        c->fail(e.what());
      }
    }
  }
  if (auto p = section.find("pipeline_threshold")) {
    o.pipeline_threshold = p->as<Bytes>();
    p->require(o.pipeline_threshold.value() >= 0, "must not be negative");
  }
  if (auto t = section.find("top_links")) {
    o.top_links = t->as<int>();
    t->require(o.top_links >= 0, "must not be negative");
  }
  section.finish();
  return o;
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
