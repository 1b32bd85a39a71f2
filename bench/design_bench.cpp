// clustersim design for GPT-3 175B on 1,024 H100 over every family (target: <= 60 s on 2 cores), and the two
// placement methods compared on the same job with its 128 nodes scattered (a seeded shuffle) over the positions
// of a 160-node rail-optimized fabric: cost (byte-hops per step) and wall time of each (docs/performance.md,
// docs/design.md).
#include <chrono>
#include <cstdio>
#include <numeric>
#include <random>

#include "sim/design/fabric_design.hpp"
#include "sim/design/placement_optimiser.hpp"
#include "sim/scenario/runner.hpp"

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  using namespace cs;
  const std::string scenario = argc > 1 ? argv[1] : std::string(CS_SOURCE_DIR) + "/scenarios/gpt3-175b-1024xh100.yaml";
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  auto t0 = std::chrono::steady_clock::now();
  DesignOptions o;
  o.threads = threads;
  const DesignReport rep = design_fabrics([&] { return load_scenario(scenario); }, o);
  const double design_s = seconds_since(t0);
  std::printf("design: %zu candidates for %d GPUs in %.2f s wall (%d threads)\n", rep.candidates.size(), rep.gpus,
              design_s, threads);
  for (const auto& c : rep.candidates) {
    std::printf("  %-34s step %.3f s  network capex %.0f USD  %s\n", c.label.c_str(), c.step_time_s,
                c.network_capex_usd, c.error.c_str());
  }

  // Placement: the job's 128 nodes on a seeded random 128 of 160 positions of a rail-optimized fabric.
  Scenario sc = load_scenario(scenario);
  FabricSpec f = sc.topology.fabric();
  std::vector<int> positions(160);
  std::iota(positions.begin(), positions.end(), 0);
  std::mt19937_64 rng(46);
  std::shuffle(positions.begin(), positions.end(), rng);
  positions.resize(static_cast<std::size_t>(sc.topology.nodes()));
  f.node_slots = positions;
  sc.topology = build_topology(sc.topology.name(), sc.topology.node(), f, sc.topology.nodes());
  const NodeTraffic traffic = node_traffic(sc.model, sc.plan, sc.training, sc.topology.node().gpus, sc.topology.nodes());
  const std::vector<double> dist = seat_distances(sc.topology);
  std::vector<int> identity(static_cast<std::size_t>(sc.topology.nodes()));
  std::iota(identity.begin(), identity.end(), 0);
  std::printf("placement: %d nodes on 128 of 160 positions; Megatron's order costs %.4g byte-hops\n",
              sc.topology.nodes(), placement_cost(traffic, dist, identity));
  t0 = std::chrono::steady_clock::now();
  const PlacementSolution g = greedy_local_search(traffic, dist);
  std::printf("  greedy + local search: %.4g byte-hops, %lld swaps, %.3f s\n", g.cost, static_cast<long long>(g.moves),
              seconds_since(t0));
  for (int moves : {400, 4000}) {
    t0 = std::chrono::steady_clock::now();
    const PlacementSolution s = simulated_annealing(traffic, dist, 1, moves);
    std::printf("  simulated annealing (%d moves per node): %.4g byte-hops, %lld swaps, %.3f s\n", moves, s.cost,
                static_cast<long long>(s.moves), seconds_since(t0));
  }
  t0 = std::chrono::steady_clock::now();
  const RunResult r = run_with_placement(sc, run_scenario(sc));
  std::printf("  full simulation: step %.4f s (Megatron's order) -> %.4f s (%s), %.2f s wall\n",
              r.placement->step_time_default.seconds(), r.placement->step_time.seconds(),
              r.placement->kept ? "optimised kept" : "default kept", seconds_since(t0));
  return 0;
}
