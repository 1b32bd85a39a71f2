#include "sim/serving/serving_runner.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/serving/disaggregated_sim.hpp"
#include "sim/serving/iteration_cost.hpp"
#include "sim/serving/replica_memory.hpp"
#include "sim/serving/request_trace.hpp"

namespace cs {

ServingRun run_serving(const ServingConfig& config, const ModelSpec& model, const ComputeCostModel& compute,
                       const ReplicaComm& comm, Bytes gpu_memory) {
  if (config.deployment.disaggregated()) {
    throw InputError({}, "serving.deployment",
                     "a disaggregated deployment has two pools: it runs through run_disaggregated_serving");
  }
  const IterationCost cost(model, config.deployment, config.engine, compute, comm);
  const ReplicaMemory memory = plan_replica_memory(cost.sharded(), config.engine, gpu_memory);
  std::vector<TraceRequest> trace;
  if (config.load.arrivals == ArrivalKind::trace) trace = load_request_trace(config.load.trace);
  return simulate_serving(config, cost, memory, config.load.arrivals == ArrivalKind::trace ? &trace : nullptr);
}

namespace {

/// A pool's memory plan, its error naming the pool.
ReplicaMemory plan_pool_memory(const IterationCost& cost, const EngineConfig& engine, Bytes gpu_memory,
                               const char* pool) {
  try {
    return plan_replica_memory(cost.sharded(), engine, gpu_memory);
  } catch (const InputError& e) {
    if (e.key_path() == "serving.deployment") {
      throw InputError(e.where(), "serving.deployment." + std::string(pool), e.message());
    }
    throw InputError(e.where(), e.key_path(), "the " + std::string(pool) + " pool: " + e.message());
  }
}

}  // namespace

ServingRun run_disaggregated_serving(const ServingConfig& config, const ModelSpec& model,
                                     const ComputeCostModel& compute, const ReplicaComm& prefill_comm,
                                     const ReplicaComm& decode_comm, const Topology& topology, Bytes gpu_memory) {
  const Deployment pd = config.deployment.pool(PoolRole::prefill);
  const Deployment dd = config.deployment.pool(PoolRole::decode);
  const IterationCost prefill_cost(model, pd, config.engine, compute, prefill_comm);
  const IterationCost decode_cost(model, dd, config.engine, compute, decode_comm);
  const ReplicaMemory prefill_memory = plan_pool_memory(prefill_cost, config.engine, gpu_memory, "prefill");
  const ReplicaMemory decode_memory = plan_pool_memory(decode_cost, config.engine, gpu_memory, "decode");
  std::vector<TraceRequest> trace;
  if (config.load.arrivals == ArrivalKind::trace) trace = load_request_trace(config.load.trace);
  const PoolModel prefill{prefill_cost, prefill_memory, pd.replicas,
                          pool_placement(config.deployment, PoolRole::prefill)};
  const PoolModel decode{decode_cost, decode_memory, dd.replicas, pool_placement(config.deployment, PoolRole::decode)};
  return simulate_disaggregated(config, prefill, decode, topology,
                                config.load.arrivals == ArrivalKind::trace ? &trace : nullptr);
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
