// An inference service's run: the scenario's `serving:` section simulated request by request (sim/serving) on its
// GPU profile's kernel prices and its topology's TP collectives, then priced by the facility layer as the
// service's window of time, so that the cost per million tokens comes from the same TCO as training's.
#pragma once

#include "sim/facility/run_profile.hpp"
#include "sim/scenario/run_result.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/hardware/compute_cost_model.hpp"
#include "sim/serving/request_sim.hpp"

namespace cs {

/// Simulates `config` (the scenario's serving section or a variant of it: another deployment, engine or load)
/// on the scenario's model, topology and GPU, priced by `compute`: one pool of replicas, or a disaggregated
/// deployment's two pools with their KV transfers on the topology. `comm`, when given, receives a description of
/// the communication model.
[[nodiscard]] ServingRun simulate_service(const Scenario& sc, const ServingConfig& config,
                                          const ComputeCostModel& compute, std::string* comm = nullptr);

/// Fills `r` for the service `sc` (sc.serving must be set): the serving result, and the power, reliability and
/// cost of the simulated window (a priced cluster) or the warning why it has none.
void run_service(const Scenario& sc, RunResult& r);

/// The service's window as the facility layer sees a run: one "step" as long as the makespan, its time split by
/// what the GPUs did (iterations that hold a prompt chunk count as compute-bound, decode-only ones as memory-bound,
/// the rest idle), and the tokens served (prompt and output) as the run's tokens.
[[nodiscard]] RunProfile service_profile(const Scenario& sc, const ServingResult& s);

}  // namespace cs
