#include "sim/serving/serving_runner.hpp"

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

}  // namespace cs
