#include "sim/cli/cmd_collective.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "sim/collectives/analytic_collectives.hpp"
#include "sim/collectives/flow_collectives.hpp"
#include "sim/collectives/network_options.hpp"
#include "sim/core/error.hpp"

namespace cs::cli {
namespace {

struct CollectiveArgs {
  std::string topology = "dgx-h100";
  int gpus = 8;
  std::string op = "all_reduce";
  std::string algorithm = "auto";
  std::string backend = "flow";
  std::string calibration = "datasheet";
  std::string min_bytes = "8B";
  std::string max_bytes = "8GiB";
  double factor = 2;
  int group_size = 0;
  bool report = false;
};

Bytes bytes_arg(const std::string& s, const char* what) {
  try {
    return parse_bytes(s);
  } catch (const UnitError& e) {
    throw InputError({}, what, e.what());
  }
}

void run_collective(const CollectiveArgs& a) {
  const auto kind = parse_collective_kind(a.op);
  if (!kind) throw InputError({}, "--op", "unknown collective \"" + a.op + "\"");
  const auto algo = parse_algorithm(a.algorithm);
  if (!algo) throw InputError({}, "--algo", "unknown algorithm \"" + a.algorithm + "\"");
  if (a.factor <= 1) throw InputError({}, "--factor", "must be greater than 1");
  // Part of one node (2 or 4 GPUs of a DGX, as a first-node buyer measures) builds that node and uses its first
  // --gpus GPUs; beyond one node the cluster is whole nodes.
  const Topology topo = load_topology_for_job(a.topology, a.gpus);
  if (a.report) std::fputs(topo.report().c_str(), stdout);
  NetworkOptions options;
  options.backend = a.backend == "analytic" ? NetworkBackend::analytic : NetworkBackend::flow;
  if (a.backend != "flow" && a.backend != "analytic") throw InputError({}, "--backend", "expected flow or analytic");
  options.calibration = a.calibration;
  // Groups: the whole cluster, or consecutive groups of --group-size ranks issued together.
  const int size = a.group_size > 0 ? a.group_size : a.gpus;
  if (a.gpus % size != 0) throw InputError({}, "--group-size", "must divide --gpus");
  std::vector<std::vector<int>> groups;
  for (int g = 0; g < a.gpus / size; ++g) {
    groups.emplace_back();
    for (int r = 0; r < size; ++r) groups.back().push_back(g * size + r);
  }
  if (*kind == CollectiveKind::send_recv) groups = {{0, a.gpus - 1}};
  const int n = static_cast<int>(groups.front().size());
  EventEngine probe_engine;
  const auto probe = make_collective_model(probe_engine, topo, options);
  std::printf("# clustersim collective: %s, %d GPUs (%d per group), %s\n", std::string(to_string(*kind)).c_str(),
              a.gpus, n, topo.name().c_str());
  std::printf("# model: %s\n", probe->describe().c_str());
  std::printf("#\n# %12s %14s %18s %12s %10s %10s\n", "size", "size", "algorithm", "time", "algbw", "busbw");
  std::printf("# %12s %14s %18s %12s %10s %10s\n", "(B)", "", "", "(us)", "(GB/s)", "(GB/s)");
  const double lo = bytes_arg(a.min_bytes, "--min-bytes").value(), hi = bytes_arg(a.max_bytes, "--max-bytes").value();
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
    const double busbw = algbw * bus_bandwidth_factor(*kind, n);
    std::printf("  %12.0f %14s %18s %12.2f %10.2f %10.2f\n", s, to_string(Bytes{s}).c_str(),
                std::string(to_string(used)).c_str(), secs * 1e6, algbw / 1e9, busbw / 1e9);
  }
}

}  // namespace

void register_collective_command(CLI::App& app) {
  auto args = std::make_shared<CollectiveArgs>();
  CLI::App* cmd = app.add_subcommand("collective", "nccl-tests-style sweep of one collective on a topology");
  cmd->add_option("-t,--topology", args->topology, "topology name or file (topologies/<name>.yaml)")->capture_default_str();
  cmd->add_option("-g,--gpus", args->gpus, "GPUs in the cluster")->capture_default_str();
  cmd->add_option("-o,--op", args->op,
                  "all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, send_recv")
      ->capture_default_str();
  cmd->add_option("-a,--algo", args->algorithm,
                  "auto (NCCL-like tuner), ring, tree, halving_doubling, hierarchical, nvls, in_network")
      ->capture_default_str();
  cmd->add_option("--backend", args->backend, "flow (max-min flow model) or analytic")->capture_default_str();
  cmd->add_option("--calibration", args->calibration, "datasheet, ideal, or a calibration CSV")->capture_default_str();
  cmd->add_option("-b,--min-bytes", args->min_bytes, "smallest message, with unit")->capture_default_str();
  cmd->add_option("-e,--max-bytes", args->max_bytes, "largest message, with unit")->capture_default_str();
  cmd->add_option("-f,--factor", args->factor, "size multiplier between rows")->capture_default_str();
  cmd->add_option("--group-size", args->group_size, "ranks per group (0: all GPUs); groups run concurrently");
  cmd->add_flag("--report", args->report, "print the topology builder's report first");
  cmd->callback([args] { run_collective(*args); });
}

}  // namespace cs::cli
