// `clustersim design SCHEDULE`: a shared-cluster schedule file as the workload. Each candidate fabric (the same
// families fabric_candidates builds for a scenario) takes the place of the cluster's topology, and of the
// topology of every scenario the schedule loads (its training jobs at each size they may run on, its services'
// replicas), and the whole schedule is simulated on it; the candidates are then priced, ranked and explained as
// for a scenario, with an SLO floor (docs/design.md, "A schedule as the workload").
#pragma once

#include "sim/design/fabric_design.hpp"
#include "sim/schedule/schedule_config.hpp"

namespace cs {

/// Puts candidate `c`'s family in place of `sc`'s fabric, sized for `sc`'s own nodes (a job of k nodes runs on
/// that family built for k nodes, as the schedule layer runs a job on its topology sized for the job). An OCS
/// candidate's circuits are set for the job from its own traffic (the strides, or the circuits matched to it,
/// as the candidate has); a serving scenario's get the ring. A scenario of one node (or part of one) keeps its
/// topology: no traffic of its leaves the node.
void put_candidate_fabric(Scenario& sc, const FabricCandidate& c);

/// The candidates for the schedule's cluster: fabric_candidates from its base scenario's fabric and node count
/// (a cluster on one switch is sized from that switch and its link). Throws InputError located at the schedule's
/// cluster.scenario when it does not load, has fewer than two nodes or no scale-out fabric.
[[nodiscard]] std::vector<FabricCandidate> schedule_candidates(const ScheduleConfig& config);

/// Every candidate for the schedule's cluster, each with the schedule simulated on it, priced and ranked.
/// Throws InputError (located at the schedule) when the cluster's scenario does not load or has no scale-out
/// fabric, and rethrows the first candidate's error when no candidate could run the schedule.
[[nodiscard]] DesignReport design_schedule(const ScheduleConfig& config, const DesignOptions& options);

}  // namespace cs
