// One serving run from its inputs, as the scenario layer will call it: the model, the GPU's cost model and
// memory, and how the replica's GPUs talk. Plans each GPU's memory (failing when the weights do not fit), loads
// the trace when the load is one, and simulates.
#pragma once

#include "sim/hardware/compute_cost_model.hpp"
#include "sim/serving/replica_comm.hpp"
#include "sim/serving/request_sim.hpp"
#include "sim/serving/serving_config.hpp"
#include "sim/workload/model_spec.hpp"

namespace cs {

/// `config.load.trace` is opened as given (the caller resolves it against the scenario's directory). Throws
/// InputError for weights that do not fit, a model the serving layer does not price, or a bad trace.
[[nodiscard]] ServingRun run_serving(const ServingConfig& config, const ModelSpec& model,
                                     const ComputeCostModel& compute, const ReplicaComm& comm, Bytes gpu_memory);

}  // namespace cs
