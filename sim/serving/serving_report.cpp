#include "sim/serving/serving_report.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/core/human_units.hpp"

namespace cs {

LatencyStats latency_stats(std::vector<double> s) {
  LatencyStats r;
  r.count = static_cast<std::int64_t>(s.size());
  if (s.empty()) return r;
  std::sort(s.begin(), s.end());
  const auto rank = [&](double p) {
    const auto k = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(s.size())));
    return s[std::clamp<std::size_t>(k, 1, s.size()) - 1];
  };
  r.mean_s = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  r.p50_s = rank(50);
  r.p90_s = rank(90);
  r.p99_s = rank(99);
  r.max_s = s.back();
  // The same nearest-rank quantiles, at kCdfPoints evenly spaced levels from the least to the most.
  for (int k = 0; k < LatencyStats::kCdfPoints; ++k) {
    r.cdf_s.push_back(k == 0 ? s.front() : rank(100.0 * k / (LatencyStats::kCdfPoints - 1)));
  }
  return r;
}

QueueVerdict queue_verdict(const std::vector<QueueSample>& samples, double arrival_rate, int replicas) {
  QueueVerdict v;
  if (samples.size() < 4) return v;
  v.final_queued = samples.back().queued;
  const std::size_t first = samples.size() / 2;
  const double n = static_cast<double>(samples.size() - first);
  double st = 0, sq = 0, stt = 0, stq = 0;
  for (std::size_t i = first; i < samples.size(); ++i) {
    const double t = samples[i].at.seconds(), q = static_cast<double>(samples[i].queued);
    st += t;
    sq += q;
    stt += t * t;
    stq += t * q;
  }
  const double var = stt - st * st / n;
  v.growth_per_s = var > 0 ? (stq - st * sq / n) / var : 0.0;
  const double span = samples.back().at.seconds() - samples[first].at.seconds();
  v.unbounded = v.growth_per_s > 0.02 * arrival_rate &&
                static_cast<double>(v.final_queued) >= 0.25 * v.growth_per_s * span;
  if (!v.unbounded) {
    v.message = "the queue stayed bounded (" + std::to_string(v.final_queued) + " waiting at the end of arrivals)";
    return v;
  }
  const auto floor = std::max<std::int64_t>(replicas, v.final_queued / 20);
  v.since = samples.front().at;
  for (const auto& s : samples) {
    if (s.queued <= floor) v.since = s.at;
  }
  v.message = "the queue grew without bound from " + format_duration(v.since.seconds()) + " on (+" +
              format_si(v.growth_per_s, "requests/s") + " over the last half of arrivals, " +
              std::to_string(v.final_queued) + " waiting when arrivals ended): the deployment is overloaded";
  return v;
}

namespace {

/// Busy time, occupancy and counts over some replicas. Busy time is GPU-weighted: a replica of g GPUs busy for
/// t counts g t, over the replicas' GPUs x span (all weights equal when the replicas are alike).
struct EngineTotals {
  double gpu_busy = 0, prefill_share = 0, occupancy_mean = 0, occupancy_max = 0, mean_decode_batch = 0;
  std::int64_t preemptions = 0, iterations = 0;
};

EngineTotals engine_totals(const std::vector<ReplicaStats>& replicas, const ReplicaMemory& memory, double span) {
  EngineTotals t;
  double busy = 0, prefill = 0, gpus = 0, occupancy = 0, decode_rows = 0, decode_iterations = 0;
  for (const ReplicaStats& s : replicas) {
    const double g = s.gpus;
    const std::int64_t blocks = s.blocks > 0 ? s.blocks : memory.blocks;
    busy += g * s.busy.seconds();
    prefill += g * s.prefill_busy.seconds();
    gpus += g;
    decode_rows += static_cast<double>(s.decode_rows);
    decode_iterations += static_cast<double>(s.decode_iterations);
    if (span > 0 && blocks > 0) occupancy += s.block_seconds / (span * static_cast<double>(blocks));
    t.occupancy_max = std::max(t.occupancy_max, static_cast<double>(s.max_blocks) /
                                                    static_cast<double>(std::max<std::int64_t>(1, blocks)));
    t.preemptions += s.preemptions;
    t.iterations += s.iterations;
  }
  if (!replicas.empty() && span > 0) {
    t.gpu_busy = busy / (span * gpus);
    t.occupancy_mean = occupancy / static_cast<double>(replicas.size());
  }
  if (busy > 0) t.prefill_share = prefill / busy;
  if (decode_iterations > 0) t.mean_decode_batch = decode_rows / decode_iterations;
  return t;
}

}  // namespace

PoolResult summarise_pool(const std::vector<ReplicaStats>& replicas, const ReplicaMemory& memory,
                          int gpus_per_replica, Time makespan) {
  const EngineTotals t = engine_totals(replicas, memory, makespan.seconds());
  PoolResult p;
  p.replicas = static_cast<int>(replicas.size());
  p.gpus_per_replica = gpus_per_replica;
  p.gpu_busy = t.gpu_busy;
  p.prefill_share = t.prefill_share;
  p.kv_occupancy_mean = t.occupancy_mean;
  p.kv_occupancy_max = t.occupancy_max;
  p.mean_decode_batch = t.mean_decode_batch;
  p.preemptions = t.preemptions;
  p.iterations = t.iterations;
  p.memory = memory;
  return p;
}

ServingResult summarise_serving(const std::vector<Request>& requests, const std::vector<ReplicaStats>& replicas,
                                const ReplicaMemory& memory, const ServiceLevel& slo, std::vector<QueueSample> samples,
                                Time window, Time stopped) {
  ServingResult r;
  r.memory = memory;
  std::vector<double> ttft, tpot, e2e;
  ttft.reserve(requests.size());
  e2e.reserve(requests.size());
  tpot.reserve(requests.size());
  Time last = Time::zero();
  double input = 0, output = 0;
  for (const Request& q : requests) {
    ++r.arrived;
    if (q.state == RequestState::rejected) {
      ++r.rejected;
      continue;
    }
    if (q.state != RequestState::finished) {
      ++r.unfinished;
      continue;
    }
    ++r.finished;
    last = std::max(last, q.finish);
    input += static_cast<double>(q.prompt);
    output += static_cast<double>(q.output);
    const Time first = q.first_token - q.arrival;
    ttft.push_back(first.seconds());
    e2e.push_back((q.finish - q.arrival).seconds());
    bool met = first <= slo.ttft;
    if (q.output > 1) {
      const double per_token = (q.finish - q.first_token).seconds() / static_cast<double>(q.output - 1);
      tpot.push_back(per_token);
      met = met && per_token <= slo.tpot.seconds();
    }
    r.slo_met += met ? 1 : 0;
  }
  r.ttft = latency_stats(std::move(ttft));
  r.tpot = latency_stats(std::move(tpot));
  r.e2e = latency_stats(std::move(e2e));
  r.makespan = r.unfinished > 0 ? stopped : last;
  const double span = r.makespan.seconds();
  if (span > 0) {
    r.requests_per_s = static_cast<double>(r.finished) / span;
    r.input_tokens_per_s = input / span;
    r.output_tokens_per_s = output / span;
    r.goodput_per_s = static_cast<double>(r.slo_met) / span;
  }
  const EngineTotals t = engine_totals(replicas, memory, span);
  r.gpu_busy = t.gpu_busy;
  r.kv_occupancy_mean = t.occupancy_mean;
  r.kv_occupancy_max = t.occupancy_max;
  r.prefill_share = t.prefill_share;
  r.mean_decode_batch = t.mean_decode_batch;
  r.preemptions = t.preemptions;
  r.iterations = t.iterations;
  const double rate = window.seconds() > 0 ? static_cast<double>(r.arrived) / window.seconds() : 0.0;
  r.queue = queue_verdict(samples, rate, static_cast<int>(replicas.size()));
  r.queue_samples = std::move(samples);
  return r;
}

namespace {

nlohmann::json latency_json(const LatencyStats& s) {
  return {{"count", s.count}, {"mean", s.mean_s}, {"p50", s.p50_s}, {"p90", s.p90_s}, {"p99", s.p99_s},
          {"max", s.max_s}, {"cdf", s.cdf_s}};
}

nlohmann::json pool_json(const PoolResult& p) {
  return {{"replicas", p.replicas},
          {"gpus_per_replica", p.gpus_per_replica},
          {"gpu_busy_fraction", p.gpu_busy},
          {"prefill_time_share", p.prefill_share},
          {"mean_decode_batch", p.mean_decode_batch},
          {"iterations", p.iterations},
          {"kv_cache",
           {{"blocks_per_replica", p.memory.blocks}, {"bytes_per_gpu", p.memory.kv_cache.value()},
            {"occupancy_mean", p.kv_occupancy_mean}, {"occupancy_max", p.kv_occupancy_max},
            {"preemptions", p.preemptions}}},
          {"weights_per_gpu_bytes", p.memory.weights.value()}};
}

nlohmann::json disaggregated_json(const DisaggregatedResult& d) {
  return {{"prefill", pool_json(d.prefill)},
          {"decode", pool_json(d.decode)},
          {"kv_transfer",
           {{"transfers", d.kv_transfer.transfers},
            {"bytes", d.kv_transfer.bytes},
            {"time_s", latency_json(d.kv_transfer.time)},
            {"wait_s", latency_json(d.kv_transfer.wait)}}}};
}

}  // namespace

nlohmann::json serving_json(const ServingResult& r) {
  nlohmann::json queue = {{"unbounded", r.queue.unbounded},
                          {"growth_per_s", r.queue.growth_per_s},
                          {"final_queued", r.queue.final_queued},
                          {"message", r.queue.message}};
  if (r.queue.unbounded) queue["since_s"] = r.queue.since.seconds();
  nlohmann::json samples = nlohmann::json::array();
  for (const auto& s : r.queue_samples) samples.push_back({s.at.seconds(), s.queued});
  queue["samples_s_queued"] = std::move(samples);
  nlohmann::json j = {
      {"requests", {{"arrived", r.arrived}, {"finished", r.finished}, {"rejected", r.rejected},
                    {"unfinished", r.unfinished}, {"slo_met", r.slo_met}}},
      {"ttft_s", latency_json(r.ttft)},
      {"tpot_s", latency_json(r.tpot)},
      {"e2e_s", latency_json(r.e2e)},
      {"makespan_s", r.makespan.seconds()},
      {"requests_per_s", r.requests_per_s},
      {"input_tokens_per_s", r.input_tokens_per_s},
      {"output_tokens_per_s", r.output_tokens_per_s},
      {"goodput_requests_per_s", r.goodput_per_s},
      {"slo_attainment", r.finished > 0 ? static_cast<double>(r.slo_met) / static_cast<double>(r.finished) : 0.0},
      {"kv_cache",
       {{"blocks_per_replica", r.memory.blocks}, {"block_tokens", r.memory.block_size},
        {"bytes_per_gpu", r.memory.kv_cache.value()}, {"occupancy_mean", r.kv_occupancy_mean},
        {"occupancy_max", r.kv_occupancy_max}, {"preemptions", r.preemptions}}},
      {"memory_per_gpu_bytes",
       {{"gpu", r.memory.gpu.value()}, {"usable", r.memory.usable.value()}, {"weights", r.memory.weights.value()},
        {"activations", r.memory.activations.value()}, {"kv_cache", r.memory.kv_cache.value()}}},
      {"iterations", r.iterations},
      {"gpu_busy_fraction", r.gpu_busy},
      {"prefill_time_share", r.prefill_share},
      {"mean_decode_batch", r.mean_decode_batch},
      {"queue", std::move(queue)},
  };
  if (r.disaggregated) j["disaggregated"] = disaggregated_json(*r.disaggregated);
  return j;
}

}  // namespace cs
