// A service clustersim cannot replay (a recommendation model, a vision model behind Triton), given instead by its
// measured latency against batch size: one replica is a single server whose batch of b requests takes L(b), L
// read from a table of measured points and interpolated linearly between them (never extrapolated: the batcher
// forms no batch larger than the largest measured one). Requests reach the replica one by one and a dynamic
// batcher groups them as Triton's does: when the replica is free it dispatches as soon as max_batch requests wait
// or the oldest has waited max_queue_delay, taking every waiting request up to max_batch. Each request's latency
// is its batch's completion minus its arrival; the SLO is a bound on it.
//
// Why a request-by-request simulation and not a formula: a batching server's queue (M/D^[b]/1 with a timer) has
// no closed-form percentile, while one replica's probe of ~20,000 requests costs about a millisecond. The probe
// is deterministic for a seed (ServingRng, the serving layer's arrival machinery).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "sim/input/enum_table.hpp"

namespace cs {

/// One measured point: a batch of `batch` requests takes `latency_s` seconds on one replica, alone.
struct LatencyPoint {
  int batch = 0;
  double latency_s = 0;
};

/// How requests arrive at a replica during a probe, named as Triton's perf_analyzer names its
/// --request-distribution: poisson (exponential gaps) or constant (equal gaps).
enum class RequestDistribution { poisson, constant };
[[nodiscard]] const EnumTable<RequestDistribution>& request_distribution_names();

/// Reads a latency table from CSV with the columns batch,latency_s (latency in seconds). Throws InputError at
/// file:line:column for an unknown or missing column, a cell that is not a number, a batch that is not a positive
/// whole number or not above the previous row's, a latency that is not positive, and a table that does not start
/// at batch 1.
[[nodiscard]] std::vector<LatencyPoint> read_latency_csv(const std::string& path);

/// Measured latency against batch size, interpolated linearly between measured batches.
class LatencyCurve {
 public:
  /// `points`: batches ascending from 1 (checked by the readers; throws std::invalid_argument otherwise).
  explicit LatencyCurve(std::vector<LatencyPoint> points);
  /// Latency of a batch of `batch` requests, 1 <= batch <= largest_batch() (std::out_of_range otherwise): the
  /// measured value at a measured batch, the straight line between the two measured neighbours elsewhere.
  [[nodiscard]] double at(int batch) const;
  [[nodiscard]] int largest_batch() const noexcept { return points_.back().batch; }
  /// The most requests/s one replica completes when every batch is of the size b <= max_batch with the
  /// highest b / L(b): no number of replicas below rate over this keeps up with `rate`.
  [[nodiscard]] double peak_throughput(int max_batch) const;

 private:
  std::vector<LatencyPoint> points_;
};

/// The replica's batcher (Triton's dynamic batcher with one model instance).
struct BatchingRule {
  int max_batch = 1;
  double max_queue_delay_s = 0;  ///< the oldest waiting request is dispatched after at most this long
};

/// One replica at a steady request rate.
struct ReplicaProbe {
  double attainment = 0;     ///< share of requests whose latency is within the SLO
  double latency_p99_s = 0;  ///< nearest-rank 99th percentile of request latency
  double busy = 0;           ///< share of the probe the replica ran batches, at most 1
  double mean_batch = 0;     ///< requests per batch
  std::int64_t requests = 0;
};

/// The probe's inputs besides the rate.
struct ReplicaProbeSpec {
  BatchingRule batching;
  double slo_s = 0;  ///< a request meets the SLO when its latency is at most this
  RequestDistribution arrivals = RequestDistribution::poisson;
  std::uint64_t seed = 1;
};

/// Requests arriving at `rate`/s over `duration_s` (all served, the queue drained) with every batch `slowdown`
/// times its measured latency (a co-located job's share of the GPU; the queue-delay timer is not slowed).
[[nodiscard]] ReplicaProbe probe_measured_replica(const LatencyCurve& curve, const ReplicaProbeSpec& spec, double rate,
                                                  double slowdown, double duration_s);
/// How long a probe at `rate` requests/s runs: about 20,000 arrivals, at least a minute and at most an hour, and
/// never more than 1,000,000 arrivals (16 MB of times; a replica left with a whole service's rate is overloaded
/// whatever the length, and its p99 is a lower bound that grows with it).
[[nodiscard]] double measured_probe_duration(double rate);

/// A measured service's sizing and hourly evaluation, memoised (the autoscaler asks for the same rates each day).
class MeasuredReplicaModel {
 public:
  MeasuredReplicaModel(LatencyCurve curve, ReplicaProbeSpec spec, double target_attainment);
  /// One replica at `rate`/s, batches slowed by `slowdown`.
  [[nodiscard]] ReplicaProbe evaluate(double rate, double slowdown);
  /// The fewest replicas that serve `rate`/s (split evenly: random routing splits a Poisson stream into Poisson
  /// streams) with `target_attainment` of requests within the SLO: the search starts at rate over the peak
  /// throughput (fewer cannot keep up), doubles until one meets the target and bisects back, assuming more
  /// replicas never do worse above that bound. At most 1 << 20.
  [[nodiscard]] int replicas_for(double rate);
  [[nodiscard]] const LatencyCurve& curve() const noexcept { return curve_; }
  [[nodiscard]] const ReplicaProbeSpec& spec() const noexcept { return spec_; }

 private:
  [[nodiscard]] bool meets(double total_rate, int replicas);

  LatencyCurve curve_;
  ReplicaProbeSpec spec_;
  double target_;
  std::mutex mu_;
  std::map<std::pair<double, double>, ReplicaProbe> memo_;
};

}  // namespace cs
