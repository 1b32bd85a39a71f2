// A schedule file made runnable: the cluster's base scenario priced (power, fixed cost per second, failure rate),
// each training job's step time at every size it may run on (the full replay, dp following the GPUs), each
// service's capacity and hourly latency from its serving simulation, and the co-location model under the
// cluster's isolation. Then simulate_cluster.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/schedule/cluster_sim.hpp"
#include "sim/schedule/schedule_config.hpp"

namespace cs {

struct Scenario;

struct ScheduleRun {
  ScheduleConfig config;
  ClusterModel cluster;
  std::vector<WorkJob> jobs;
  std::vector<ServiceModel> services;
  ScheduleResult result;
  std::vector<std::string> notes;  ///< how each job and service was priced (one line each)
  double model_s = 0, simulate_s = 0;  ///< wall time building the models and simulating
};

/// Called on every scenario the schedule loads (the cluster's, each training job's at each size it may run on,
/// each service's one replica) after it is loaded and before it is priced or run: `clustersim design` puts a
/// candidate fabric in place of its topology. Called from the calling thread only.
using ScenarioHook = std::function<void(Scenario&)>;

/// Loads every scenario the schedule names, prices the jobs and services, and simulates. Throws InputError at
/// the schedule's key when a job's scenario does not load or a service does not fit its GPUs.
[[nodiscard]] ScheduleRun run_schedule(const ScheduleConfig& config, const ScenarioHook& hook = {});

}  // namespace cs
