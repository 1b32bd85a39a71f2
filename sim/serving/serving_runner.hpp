// One serving run from its inputs, as the scenario layer will call it: the model, the GPU's cost model and
// memory, and how the replica's GPUs talk. Plans each GPU's memory (failing when the weights do not fit), loads
// the trace when the load is one, and simulates.
#pragma once

#include "sim/hardware/compute_cost_model.hpp"
#include "sim/serving/replica_comm.hpp"
#include "sim/topology/topology.hpp"
#include "sim/serving/request_sim.hpp"
#include "sim/serving/serving_config.hpp"
#include "sim/workload/model_spec.hpp"

namespace cs {

/// One pool of replicas (not disaggregated: that is run_disaggregated_serving's). `config.load.trace` is opened
/// as given (the caller resolves it against the scenario's directory). Throws InputError for weights that do not
/// fit, a model the serving layer does not price, or a bad trace.
[[nodiscard]] ServingRun run_serving(const ServingConfig& config, const ModelSpec& model,
                                     const ComputeCostModel& compute, const ReplicaComm& comm, Bytes gpu_memory);

/// A disaggregated deployment (config.deployment.disaggregated()): each pool priced and its memory planned at its
/// own tp with its own TP collectives (`prefill_comm`, `decode_comm`), the KV caches sent over `topology`
/// (sim/serving/disaggregated_sim.hpp). Throws InputError as run_serving does, naming the pool that does not fit
/// (at serving.deployment.prefill or .decode).
[[nodiscard]] ServingRun run_disaggregated_serving(const ServingConfig& config, const ModelSpec& model,
                                                   const ComputeCostModel& compute, const ReplicaComm& prefill_comm,
                                                   const ReplicaComm& decode_comm, const Topology& topology,
                                                   Bytes gpu_memory);

// A steady-rate probe of one replica. Replicas serve independently (round-robin routing splits a Poisson
// stream into Poisson streams), so one replica at rate / replicas stands for a service of `replicas` at `rate`:
// the schedule layer's autoscaler and the serving plan search both size services this way.

/// How long a probe at `rate` requests/s runs: about 1,500 arrivals, at least a minute and at most an hour.
[[nodiscard]] Time steady_probe_duration(double rate);
/// `config` narrowed to one replica under Poisson arrivals at `rate` requests/s arriving for `duration`.
[[nodiscard]] ServingConfig one_replica_at(const ServingConfig& config, double rate, Time duration);
/// The share of arrived requests that finished within both SLO targets (rejected and unfinished ones miss);
/// 0 when none arrived.
[[nodiscard]] double slo_attainment(const ServingResult& r);

}  // namespace cs
