#include "sim/collectives/network_params.hpp"

#include "sim/collectives/calibration.hpp"

namespace cs {

const EnumTable<NetworkBackend>& backend_names() {
  static const EnumTable<NetworkBackend> t{{NetworkBackend::flow, "flow"}, {NetworkBackend::analytic, "analytic"}};
  return t;
}

namespace {

const std::vector<std::string>& algorithm_names() {
  static const std::vector<std::string> v{"auto", "ring", "tree", "halving_doubling", "hierarchical", "nvls",
                                          "in_network"};
  return v;
}

CollectiveAlgorithm read_algorithm(const InputNode& n) {
  const std::string s = n.as<std::string>();
  const auto a = parse_algorithm(s);
  if (!a) n.fail("unknown algorithm \"" + s + "\" (expected " + EnumTable<int>::join_alternatives(algorithm_names()) + ")");
  return *a;
}

/// "all_reduce": the key spelling of a collective kind.
std::string kind_key(CollectiveKind k) {
  std::string key(to_string(k));
  for (char& c : key) {
    if (c == '-' || c == '/') c = '_';
  }
  return key;
}

const ParamTable<NetworkOptions>& algorithm_params() {
  static const ParamTable<NetworkOptions> t = [] {
    ParamTable<NetworkOptions> p("algorithms", "Per-kind algorithm overrides; kinds not listed use the NCCL-like "
                                               "tuner.");
    for (CollectiveKind k : {CollectiveKind::all_reduce, CollectiveKind::all_gather, CollectiveKind::reduce_scatter,
                             CollectiveKind::broadcast, CollectiveKind::reduce, CollectiveKind::all_to_all,
                             CollectiveKind::send_recv}) {
      ParamSpec s{.key = kind_key(k), .type = ParamType::choice,
                  .help = "algorithm for every " + std::string(to_string(k)), .default_text = "auto",
                  .choices = algorithm_names()};
      s.check = [](const InputNode& n) { (void)read_algorithm(n); };
      p.custom(std::move(s), [k](const InputNode& n, NetworkOptions& o) { o.algorithm[k] = read_algorithm(n); });
    }
    return p;
  }();
  return t;
}

void check_calibration(const InputNode& n) {
  const std::string c = n.as<std::string>();
  if (c == "datasheet" || c == "ideal") return;
  try {
    (void)CollectiveCalibration::load_csv(c);  // a missing or bad file is reported before anything runs
  } catch (const InputError& e) {
    n.fail(e.what());
  }
}

}  // namespace

const ParamTable<NetworkOptions>& network_params() {
  static const ParamTable<NetworkOptions> t = [] {
    ParamTable<NetworkOptions> p("network", "How communication is modelled (docs/network.md).");
    p.choice("backend", &NetworkOptions::backend, backend_names(),
             {.help = "flow: flow-level max-min sharing with contention; analytic: no contention (fast screens)"});
    p.section(algorithm_params());
    ParamSpec cal{.key = "calibration", .type = ParamType::text,
                  .help = "datasheet (NCCL tuning constants), ideal (no overheads) or the path of a collective "
                          "calibration CSV",
                  .default_text = "datasheet"};
    cal.check = check_calibration;
    p.custom(cal, [](const InputNode& n, NetworkOptions& o) {
      check_calibration(n);
      o.calibration = n.as<std::string>();
    });
    p.field("pipeline_threshold", &NetworkOptions::pipeline_threshold,
            {.help = "hierarchical collectives run their stages as concurrent (pipelined) flows above this message size", .min = 0.0});
    p.field("top_links", &NetworkOptions::top_links,
            {.help = "busiest links listed in the result's network section", .min = 0});
    return p;
  }();
  return t;
}

NetworkOptions parse_network_options(const InputNode& section) {
  NetworkOptions o;
  network_params().read(section, o);
  return o;
}

}  // namespace cs
