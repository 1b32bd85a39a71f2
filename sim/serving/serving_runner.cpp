#include "sim/serving/serving_runner.hpp"

#include <algorithm>

#include "sim/serving/iteration_cost.hpp"
#include "sim/serving/replica_memory.hpp"
#include "sim/serving/request_trace.hpp"

namespace cs {

ServingRun run_serving(const ServingConfig& config, const ModelSpec& model, const ComputeCostModel& compute,
                       const ReplicaComm& comm, Bytes gpu_memory) {
  const IterationCost cost(model, config.deployment, config.engine, compute, comm);
  const ReplicaMemory memory = plan_replica_memory(cost.sharded(), config.engine, gpu_memory);
  std::vector<TraceRequest> trace;
  if (config.load.arrivals == ArrivalKind::trace) trace = load_request_trace(config.load.trace);
  return simulate_serving(config, cost, memory, config.load.arrivals == ArrivalKind::trace ? &trace : nullptr);
}

Time steady_probe_duration(double rate) { return Time::from_seconds(std::clamp(1500.0 / rate, 60.0, 3600.0)); }

ServingConfig one_replica_at(const ServingConfig& config, double rate, Time duration) {
  ServingConfig c = config;
  c.deployment.replicas = 1;
  c.load.arrivals = ArrivalKind::poisson;
  c.load.rate = rate;
  c.duration = duration;
  return c;
}

double slo_attainment(const ServingResult& r) {
  return static_cast<double>(r.slo_met) / static_cast<double>(std::max<std::int64_t>(1, r.arrived));
}

}  // namespace cs
