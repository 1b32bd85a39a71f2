// What a serving run reports: latency percentiles (time to first token, time per output token after the first,
// end to end), throughput in requests and tokens, goodput under the SLO, the KV cache's occupancy and
// preemptions, how busy the GPUs were, and whether the queue grew without bound. Numbers in SI units (seconds,
// bytes, per second); `serving_json` gives the JSON form.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/units.hpp"
#include "sim/serving/replica.hpp"
#include "sim/serving/replica_memory.hpp"
#include "sim/serving/request.hpp"
#include "sim/serving/serving_config.hpp"

namespace cs {

/// Percentiles by the nearest-rank method (the smallest sample with at least p% of the samples at or below it).
struct LatencyStats {
  std::int64_t count = 0;
  double mean_s = 0, p50_s = 0, p90_s = 0, p99_s = 0, max_s = 0;
  /// The distribution: the latency at quantile k / (size - 1), k = 0 .. kCdfPoints - 1 (the first is the least,
  /// the last the most); empty when there are no samples.
  std::vector<double> cdf_s;
  static constexpr int kCdfPoints = 41;
};
[[nodiscard]] LatencyStats latency_stats(std::vector<double> seconds);

struct QueueSample {
  Time at;
  std::int64_t queued = 0;  ///< requests waiting or swapped out, over all replicas
};

/// The queue's trend over the last half of the arrival window: a least-squares slope of the queue length
/// against time. It grew without bound when the slope exceeds 2% of the arrival rate over that half and the
/// queue at the end holds at least a quarter of what the slope adds over it (a late burst that has not drained
/// is not a trend); it has grown since the last sample at which the queue held at most 5% of its final length
/// (or one request per replica).
struct QueueVerdict {
  bool unbounded = false;
  Time since;                 ///< when the growth began (unbounded only)
  double growth_per_s = 0;    ///< the slope, requests per second
  std::int64_t final_queued = 0;
  std::string message;        ///< one sentence for summaries
};
[[nodiscard]] QueueVerdict queue_verdict(const std::vector<QueueSample>& samples, double arrival_rate, int replicas);

/// One pool of a disaggregated deployment: its replicas' time and cache.
struct PoolResult {
  int replicas = 0;
  int gpus_per_replica = 0;
  double gpu_busy = 0;           ///< time its replicas ran iterations over replicas x makespan
  double prefill_share = 0;      ///< share of that time in iterations that hold a prompt chunk
  double kv_occupancy_mean = 0;  ///< as ServingResult's, over this pool's replicas
  double kv_occupancy_max = 0;
  double mean_decode_batch = 0;
  std::int64_t preemptions = 0;
  std::int64_t iterations = 0;
  ReplicaMemory memory;          ///< one GPU of one of its replicas
};

/// The KV caches sent from the prefill pool to the decode pool.
struct KvTransferResult {
  std::int64_t transfers = 0;  ///< caches that arrived
  double bytes = 0;            ///< bytes of every transfer started, all flows
  LatencyStats time;           ///< from the transfer's start to its last byte, over arrived transfers
  LatencyStats wait;           ///< from the prefill's end to the transfer's start (room on the decode replica)
};

/// What a disaggregated run adds: each pool and the transfers between them.
struct DisaggregatedResult {
  PoolResult prefill, decode;
  KvTransferResult kv_transfer;
};

struct ServingResult {
  std::int64_t arrived = 0, finished = 0, rejected = 0, unfinished = 0;
  LatencyStats ttft, tpot, e2e;  ///< finished requests; tpot over those with more than one output token
  Time makespan;                 ///< from time zero to the last finish (or the end of the run)
  double requests_per_s = 0, input_tokens_per_s = 0, output_tokens_per_s = 0;
  std::int64_t slo_met = 0;      ///< finished requests within both the TTFT and TPOT targets
  double goodput_per_s = 0;      ///< slo_met / makespan
  double kv_occupancy_mean = 0;  ///< blocks in use over blocks, time-weighted over the makespan, mean of replicas
  double kv_occupancy_max = 0;   ///< the most of any replica in any iteration
  std::int64_t preemptions = 0;
  std::int64_t iterations = 0;
  double gpu_busy = 0;           ///< time the replicas ran iterations over replicas x makespan
  double prefill_share = 0;      ///< share of that time in iterations that hold a prompt chunk
  double mean_decode_batch = 0;  ///< decoding sequences per iteration that decodes
  ReplicaMemory memory;
  QueueVerdict queue;
  std::vector<QueueSample> queue_samples;
  std::optional<DisaggregatedResult> disaggregated;  ///< disaggregated deployments only
};

/// Summarises a finished run: `requests` (every arrived request), the replicas' statistics, the queue samples
/// taken over the arrival window [0, window) and when the run stopped. Busy time is weighted by each replica's
/// GPUs (ReplicaStats::gpus) and occupancy taken over its own blocks.
[[nodiscard]] ServingResult summarise_serving(const std::vector<Request>& requests,
                                              const std::vector<ReplicaStats>& replicas, const ReplicaMemory& memory,
                                              const ServiceLevel& slo, std::vector<QueueSample> samples, Time window,
                                              Time stopped);

/// A pool's share of a run that lasted `makespan`: `replicas` are its replicas' statistics.
[[nodiscard]] PoolResult summarise_pool(const std::vector<ReplicaStats>& replicas, const ReplicaMemory& memory,
                                        int gpus_per_replica, Time makespan);

/// The JSON form: seconds, bytes and rates as plain numbers whose keys carry the unit (`ttft_s.p99`,
/// `kv_cache_bytes_per_gpu`, `requests_per_s`).
[[nodiscard]] nlohmann::json serving_json(const ServingResult& r);

}  // namespace cs
