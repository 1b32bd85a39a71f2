#include "sim/cli/cmd_collective.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "sim/api/clustersim.hpp"

namespace cs::cli {
namespace {

struct CollectiveArgs {
  api::CollectiveSweepOptions sweep;
  bool report = false;
};

void print_sweep(const api::CollectiveSweep& s, bool report) {
  if (report) std::fputs(s.topology_report.c_str(), stdout);
  std::printf("# clustersim collective: %s, %d GPUs (%d per group), %s\n", s.collective.c_str(), s.gpus,
              s.group_ranks, s.topology.c_str());
  std::printf("# model: %s\n", s.model.c_str());
  std::printf("#\n# %12s %14s %18s %12s %10s %10s\n", "size", "size", "algorithm", "time", "algbw", "busbw");
  std::printf("# %12s %14s %18s %12s %10s %10s\n", "(B)", "", "", "(us)", "(GB/s)", "(GB/s)");
  for (const api::CollectiveSample& x : s.samples) {
    std::printf("  %12.0f %14s %18s %12.2f %10.2f %10.2f\n", x.bytes, x.size.c_str(), x.algorithm.c_str(),
                x.seconds * 1e6, x.algbw / 1e9, x.busbw / 1e9);
  }
}

}  // namespace

void register_collective_command(CLI::App& app) {
  auto args = std::make_shared<CollectiveArgs>();
  api::CollectiveSweepOptions& o = args->sweep;
  CLI::App* cmd = app.add_subcommand("collective", "nccl-tests-style sweep of one collective on a topology");
  cmd->add_option("-t,--topology", o.topology, "topology name or file (topologies/<name>.yaml)")->capture_default_str();
  cmd->add_option("-g,--gpus", o.gpus, "GPUs in the cluster")->capture_default_str();
  cmd->add_option("-o,--op", o.op,
                  "all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, send_recv")
      ->capture_default_str();
  cmd->add_option("-a,--algo", o.algorithm,
                  "auto (NCCL-like tuner), ring, tree, halving_doubling, hierarchical, nvls, in_network")
      ->capture_default_str();
  cmd->add_option("--backend", o.backend, "flow (max-min flow model) or analytic")->capture_default_str();
  cmd->add_option("--calibration", o.calibration, "datasheet, ideal, or a calibration CSV")->capture_default_str();
  cmd->add_option("-b,--min-bytes", o.min_bytes, "smallest message, with unit")->capture_default_str();
  cmd->add_option("-e,--max-bytes", o.max_bytes, "largest message, with unit")->capture_default_str();
  cmd->add_option("-f,--factor", o.factor, "size multiplier between rows")->capture_default_str();
  cmd->add_option("--group-size", o.group_size, "ranks per group (0: all GPUs); groups run concurrently");
  cmd->add_flag("--report", args->report, "print the topology builder's report first");
  cmd->callback([args] { print_sweep(api::collective_sweep(args->sweep), args->report); });
}

}  // namespace cs::cli
