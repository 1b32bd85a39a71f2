// Rank placement (parallelism.placement: optimise): which fabric position each of a job's nodes takes, so that
// heavy node-to-node traffic (job_traffic.hpp) crosses few switch hops of the real fabric. A quadratic
// assignment: cost(order) = sum over node pairs of bytes(a, b) x hops(seat(a), seat(b)), where the seats are the
// positions the job was given (possibly irregular: FabricSpec::node_slots). Two methods, compared in
// bench/design_bench and docs/design.md: a greedy start with pairwise-swap local search, and simulated annealing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/design/job_traffic.hpp"
#include "sim/scenario/run_result.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology.hpp"

namespace cs {

/// Switch-to-switch hops between the seats (the topology's nodes), seats x seats, row-major: the mean over
/// the node's NICs of the fabric distance between NIC i of one and NIC i of the other (rail-matched, as NCCL
/// sends); direct fabrics count router hops. Zero on the diagonal.
[[nodiscard]] std::vector<double> seat_distances(const Topology& topology);

/// A placement: order[k] is the seat of node k.
struct PlacementSolution {
  std::vector<int> order;
  double cost = 0;         ///< byte-hops per step
  std::int64_t moves = 0;  ///< swaps evaluated
};

[[nodiscard]] double placement_cost(const NodeTraffic& traffic, const std::vector<double>& dist,
                                    const std::vector<int>& order);
/// Nodes by total traffic, heaviest first, each to the free seat closest (traffic-weighted) to those placed;
/// then pairwise swaps that lower the cost until none does; the same swaps from the given order, and the better
/// of the two (so never costlier than the given order). Deterministic.
[[nodiscard]] PlacementSolution greedy_local_search(const NodeTraffic& traffic, const std::vector<double>& dist);
/// Random pairwise swaps from the given order, accepted by the Metropolis rule under geometric cooling from the
/// mean cost change of a swap to a thousandth of it, `moves_per_node` x nodes moves; seeded (deterministic).
[[nodiscard]] PlacementSolution simulated_annealing(const NodeTraffic& traffic, const std::vector<double>& dist,
                                                    std::uint64_t seed, int moves_per_node = 400);

/// `sc` with placement: optimise: the default run `megatron` (rank r on GPU r) is compared with the full
/// simulation at the optimised node positions; the faster one is returned with its placement report. The
/// optimised one is kept only when its step is strictly faster.
[[nodiscard]] RunResult run_with_placement(const Scenario& sc, RunResult megatron);

}  // namespace cs
