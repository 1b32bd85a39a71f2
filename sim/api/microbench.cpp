#include "sim/api/microbench.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

#include "sim/collectives/analytic_collectives.hpp"
#include "sim/collectives/flow_collectives.hpp"
#include "sim/collectives/network_options.hpp"
#include "sim/core/error.hpp"
#include "sim/hardware/cost_table.hpp"
#include "sim/hardware/device_profile.hpp"
#include "sim/topology/topology.hpp"

namespace cs::api {

std::string kernel_cost_csv(const std::string& profile_name, const std::string& shapes_path) {
  const DeviceProfile profile = find_device_profile(profile_name);
  const auto model = make_cost_model(profile);
  std::ostringstream out;
  if (shapes_path == "-") {
    write_cost_csv(std::cin, "<stdin>", out, *model);
    return out.str();
  }
  std::ifstream in(shapes_path);
  if (!in) throw InputError({shapes_path, 0, 0}, "", "cannot open the shapes file");
  write_cost_csv(in, shapes_path, out, *model);
  return out.str();
}

namespace {
Bytes bytes_option(const std::string& s, const char* option) {
  try {
    return parse_bytes(s);
  } catch (const UnitError& e) {
    throw InputError({}, option, e.what());
  }
}
}  // namespace

CollectiveSweep collective_sweep(const CollectiveSweepOptions& a) {
  const auto kind = parse_collective_kind(a.op);
  if (!kind) throw InputError({}, "--op", "unknown collective \"" + a.op + "\"");
  const auto algo = parse_algorithm(a.algorithm);
  if (!algo) throw InputError({}, "--algo", "unknown algorithm \"" + a.algorithm + "\"");
  if (a.factor <= 1) throw InputError({}, "--factor", "must be greater than 1");
  // Part of one node (2 or 4 GPUs of a DGX, as a first-node buyer measures) builds that node and uses its first
  // `gpus` GPUs; beyond one node the cluster is whole nodes.
  const Topology topo = load_topology_for_job(a.topology, a.gpus);
  NetworkOptions options;
  options.backend = a.backend == "analytic" ? NetworkBackend::analytic : NetworkBackend::flow;
  if (a.backend != "flow" && a.backend != "analytic") throw InputError({}, "--backend", "expected flow or analytic");
  options.calibration = a.calibration;
  // Groups: the whole cluster, or consecutive groups of group_size ranks issued together.
  const int size = a.group_size > 0 ? a.group_size : a.gpus;
  if (a.gpus % size != 0) throw InputError({}, "--group-size", "must divide --gpus");
  std::vector<std::vector<int>> groups;
  for (int g = 0; g < a.gpus / size; ++g) {
    groups.emplace_back();
    for (int r = 0; r < size; ++r) groups.back().push_back(g * size + r);
  }
  if (*kind == CollectiveKind::send_recv) groups = {{0, a.gpus - 1}};
  const double lo = bytes_option(a.min_bytes, "--min-bytes").value();
  const double hi = bytes_option(a.max_bytes, "--max-bytes").value();

  CollectiveSweep out;
  out.collective = std::string(to_string(*kind));
  out.gpus = a.gpus;
  out.group_ranks = static_cast<int>(groups.front().size());
  out.topology = topo.name();
  out.topology_report = topo.report();
  EventEngine probe_engine;
  out.model = make_collective_model(probe_engine, topo, options)->describe();
  for (double s = lo; s <= hi * (1 + 1e-9); s *= a.factor) {
    EventEngine engine;
    auto model = make_collective_model(engine, topo, options);
    CollectiveRequest req{*kind, Bytes{s}, groups, "nccl-tests sweep", *algo};
    CollectiveAlgorithm used = *algo;
    if (const auto* f = dynamic_cast<const FlowCollectives*>(model.get())) used = f->algorithm_for(req);
    if (const auto* an = dynamic_cast<const AnalyticCollectives*>(model.get())) used = an->algorithm_for(req);
    Time end;
    model->start(req, [&] { end = engine.now(); });
    engine.run();
    const double secs = end.seconds();
    const double algbw = secs > 0 ? s / secs : 0;
    out.samples.push_back({.bytes = s,
                           .size = to_string(Bytes{s}),
                           .algorithm = std::string(to_string(used)),
                           .seconds = secs,
                           .algbw = algbw,
                           .busbw = algbw * bus_bandwidth_factor(*kind, out.group_ranks)});
  }
  return out;
}

}  // namespace cs::api
