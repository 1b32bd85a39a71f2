// The request-level serving simulator on the shared EventEngine. Three kinds of event: a request arrives (and is
// routed to a replica's queue), a replica's iteration ends (its tokens are applied and the next iteration is
// formed at once), and the queue is sampled (240 times over the arrival window, for the overload verdict).
// Arrivals are drawn one at a time, so the heap holds one arrival, one iteration per busy replica and one sample.
//
// Arrivals stop at the duration (a trace's end); requests in flight then have `drain` to finish, after which
// the run stops whatever is left: an overloaded deployment ends with its queue reported as growing without bound
// and its unfinished requests counted, never running on.
#pragma once

#include <vector>

#include "sim/serving/iteration_cost.hpp"
#include "sim/serving/replica_memory.hpp"
#include "sim/serving/request.hpp"
#include "sim/serving/request_trace.hpp"
#include "sim/serving/serving_config.hpp"
#include "sim/serving/serving_report.hpp"

namespace cs {

/// One engine iteration of one replica, for the timeline (`clustersim run --trace` on a service).
struct IterationRecord {
  int replica = 0;
  Time start, end;
  std::int64_t prefill_tokens = 0;  ///< prompt tokens of the chunks in it
  int prefills = 0;                 ///< prompt chunks in it
  std::int64_t decodes = 0;         ///< sequences decoding one token
};

struct ServingRun {
  ServingResult result;
  /// The first config.record_iterations iterations (in start order), when asked for.
  std::vector<IterationRecord> iterations;
  std::vector<Request> requests;  ///< every request that arrived, in arrival order
  std::uint64_t events = 0;       ///< engine events executed
};

/// When arrivals stop: the duration, or just after a trace's last arrival when no duration is given.
[[nodiscard]] Time serving_arrival_window(const ServingConfig& config, const std::vector<TraceRequest>* trace);
/// A request as it arrives: its lengths (at least one output token) and its prompt's prefix-cache hits, whole
/// blocks leaving at least one token to compute. Not yet routed.
[[nodiscard]] Request arriving_request(Time arrival, std::int64_t prompt, std::int64_t output,
                                       const EngineConfig& engine);

/// Runs `config`'s load against `config.deployment.replicas` replicas priced by `cost`, each with
/// `memory.blocks` KV blocks. `trace` must be given (and hold at least one request) when the load is a trace.
[[nodiscard]] ServingRun simulate_serving(const ServingConfig& config, const IterationCost& cost,
                                          const ReplicaMemory& memory,
                                          const std::vector<TraceRequest>* trace = nullptr);

}  // namespace cs
