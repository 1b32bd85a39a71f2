// Disaggregated prefill and decode (DistServe, Zhong et al., OSDI 2024; Splitwise, Patel et al., ISCA 2024) on the
// shared EventEngine: requests arrive at the prefill pool, are routed to one of its replicas and prefilled there
// (continuous or chunked-prefill batching); the iteration that ends a prompt samples the first token, which is
// streamed to the user at once, so TTFT ends there, as both papers measure it. The request is then routed to a
// decode replica (the deployment's routing over the decode pool) and waits, its cache held on the prefill
// replica, until the decode replica's free blocks can hold its prompt's cache; then the cache is sent over the
// fabric (KvTransferNetwork: flows that share links max-min fairly with every other KV transfer) and, when the
// last byte arrives, the prefill replica frees its blocks and the request decodes with the decode replica's
// continuous batching. The wait and the transfer delay the second token, so they count in TPOT and end to end.
//
// Events: arrivals, each replica's iteration ends, flow starts and ends of the transfers, and the queue samples
// (prefill queues, requests waiting for a decode replica's room, and the decode replicas' own queues).
#pragma once

#include <vector>

#include "sim/serving/iteration_cost.hpp"
#include "sim/serving/kv_transfer.hpp"
#include "sim/serving/replica_memory.hpp"
#include "sim/serving/request_sim.hpp"
#include "sim/serving/request_trace.hpp"
#include "sim/serving/serving_config.hpp"
#include "sim/topology/topology.hpp"

namespace cs {

/// One pool as the simulator sees it: how an iteration is priced, the memory of its GPUs, where it sits.
struct PoolModel {
  const IterationCost& cost;
  const ReplicaMemory& memory;
  int replicas = 0;
  PoolPlacement placement;
};

/// The pools of `config.deployment` (disaggregated) laid out on the topology: the prefill pool from GPU 0, the
/// decode pool after it.
[[nodiscard]] PoolPlacement pool_placement(const Deployment& deployment, PoolRole role);

/// Runs `config`'s load against the prefill and decode pools, their KV transfers on `topology` (which must hold
/// both pools' GPUs). Iteration records number the prefill replicas first, then the decode replicas.
[[nodiscard]] ServingRun simulate_disaggregated(const ServingConfig& config, const PoolModel& prefill,
                                                const PoolModel& decode, const Topology& topology,
                                                const std::vector<TraceRequest>* trace = nullptr);

}  // namespace cs
