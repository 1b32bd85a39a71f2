#include "sim/serving/disaggregated_sim.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "sim/core/error.hpp"
#include "sim/core/event_engine.hpp"
#include "sim/serving/arrival_process.hpp"
#include "sim/serving/replica.hpp"

namespace cs {

namespace {

constexpr int kDisaggregatedQueueSamples = 240;

/// One request's way from its prefill replica to its decode replica.
struct Handoff {
  int prefill = -1, decode = -1;
  Time ready = Time::max();    ///< its prefill ended (first token sampled)
  Time sent = Time::max();     ///< the decode replica took it: its cache started moving
  Time arrived = Time::max();  ///< the cache's last byte arrived
};

class DisaggregatedSim {
 public:
  DisaggregatedSim(const ServingConfig& config, const PoolModel& prefill, const PoolModel& decode,
                   const Topology& topology, const std::vector<TraceRequest>* trace)
      : config_(config),
        prefill_(prefill),
        decode_(decode),
        window_(serving_arrival_window(config, trace)),
        source_(config.load, window_, static_cast<std::uint64_t>(config.seed), trace),
        transfers_(engine_, topology) {
    const auto make = [&](const PoolModel& pool, ReplicaRole role, std::vector<Replica>& into) {
      into.reserve(static_cast<std::size_t>(pool.replicas));
      for (int i = 0; i < pool.replicas; ++i) {
        into.emplace_back(config.engine, pool.cost, pool.memory.blocks, requests_, role);
      }
    };
    make(prefill, ReplicaRole::prefill, prefills_);
    make(decode, ReplicaRole::decode, decodes_);
    sample_every_ = std::max(Time::ns(1), Time::ns(window_.count_ns() / kDisaggregatedQueueSamples));
  }

  ServingRun run() {
    schedule_next_arrival();
    engine_.schedule_at(Time::zero(), [this] { sample(); });
    const Time stop = window_ + config_.drain;
    engine_.run(stop);
    const Time stopped = engine_.pending() > 0 ? stop : engine_.now();
    const auto stats_of = [](const std::vector<Replica>& pool, int gpus) {
      std::vector<ReplicaStats> out;
      for (const Replica& r : pool) {
        out.push_back(r.stats());
        out.back().gpus = gpus;
      }
      return out;
    };
    const std::vector<ReplicaStats> p = stats_of(prefills_, prefill_.placement.gpus_per_replica());
    const std::vector<ReplicaStats> d = stats_of(decodes_, decode_.placement.gpus_per_replica());
    std::vector<ReplicaStats> all = p;
    all.insert(all.end(), d.begin(), d.end());
    ServingRun out;
    out.result = summarise_serving(requests_, all, decode_.memory, config_.slo, std::move(samples_), window_, stopped);
    DisaggregatedResult dis;
    dis.prefill = summarise_pool(p, prefill_.memory, prefill_.placement.gpus_per_replica(), out.result.makespan);
    dis.decode = summarise_pool(d, decode_.memory, decode_.placement.gpus_per_replica(), out.result.makespan);
    std::vector<double> times, waits;
    for (const Handoff& h : handoffs_) {
      if (h.sent != Time::max()) waits.push_back((h.sent - h.ready).seconds());
      if (h.arrived != Time::max()) times.push_back((h.arrived - h.sent).seconds());
    }
    dis.kv_transfer.transfers = static_cast<std::int64_t>(times.size());
    dis.kv_transfer.bytes = transfers_.bytes_sent().value();
    dis.kv_transfer.time = latency_stats(std::move(times));
    dis.kv_transfer.wait = latency_stats(std::move(waits));
    out.result.disaggregated = std::move(dis);
    out.events = engine_.executed();
    out.requests = std::move(requests_);
    out.iterations = std::move(iterations_);
    return out;
  }

 private:
  [[nodiscard]] std::vector<Replica>& pool(PoolRole role) { return role == PoolRole::prefill ? prefills_ : decodes_; }

  void schedule_next_arrival() {
    const std::optional<RequestSpec> next = source_.next();
    if (!next) return;
    engine_.schedule_at(next->arrival, [this, spec = *next] { arrive(spec); });
  }

  void arrive(const RequestSpec& spec) {
    Request r = arriving_request(spec.arrival, spec.prompt, spec.output, config_.engine);
    r.replica = route(prefills_, next_prefill_);
    requests_.push_back(r);
    handoffs_.emplace_back();
    const auto id = static_cast<int>(requests_.size() - 1);
    Request& q = requests_.back();
    // A prefill replica checks the prompt; a decode replica must be able to hold the prompt and the output.
    if (!decodes_.front().can_hold(q.prompt + q.output)) {
      q.state = RequestState::rejected;
    } else if (prefills_[static_cast<std::size_t>(q.replica)].enqueue(id)) {
      start(PoolRole::prefill, q.replica);
    }
    schedule_next_arrival();
  }

  int route(const std::vector<Replica>& replicas, int& next) const {
    const int n = static_cast<int>(replicas.size());
    if (config_.deployment.routing == Routing::round_robin) return next++ % n;
    int best = 0;
    for (int i = 1; i < n; ++i) {
      if (replicas[static_cast<std::size_t>(i)].load() < replicas[static_cast<std::size_t>(best)].load()) best = i;
    }
    return best;
  }

  void start(PoolRole role, int i) {
    Replica& r = pool(role)[static_cast<std::size_t>(i)];
    if (r.in_flight()) return;
    const std::optional<Time> t = r.start_iteration();
    if (!t) return;
    if (static_cast<std::int64_t>(iterations_.size()) < config_.record_iterations) {
      const int index = role == PoolRole::prefill ? i : static_cast<int>(prefills_.size()) + i;
      IterationRecord rec{index, engine_.now(), engine_.now() + *t, 0, 0, r.batch().decodes};
      for (const auto& c : r.batch().prefills) {
        rec.prefill_tokens += c.tokens;
        ++rec.prefills;
      }
      iterations_.push_back(rec);
    }
    engine_.schedule_in(*t, [this, role, i] { end(role, i); });
  }

  void end(PoolRole role, int i) {
    Replica& r = pool(role)[static_cast<std::size_t>(i)];
    r.end_iteration(engine_.now());
    if (role == PoolRole::prefill) {
      for (const int id : r.take_handoffs()) hand_off(i, id);
    } else {
      send_admitted(i);  // finished requests freed blocks
    }
    start(role, i);
  }

  void hand_off(int p, int id) {
    Handoff& h = handoffs_[static_cast<std::size_t>(id)];
    h.prefill = p;
    h.ready = engine_.now();
    h.decode = route(decodes_, next_decode_);
    decodes_[static_cast<std::size_t>(h.decode)].offer(id);
    send_admitted(h.decode);
  }

  /// Starts the transfer of every request decode replica `d` now has room for.
  void send_admitted(int d) {
    for (const int id : decodes_[static_cast<std::size_t>(d)].admit_arrivals()) {
      Handoff& h = handoffs_[static_cast<std::size_t>(id)];
      h.sent = engine_.now();
      const std::int64_t tokens = requests_[static_cast<std::size_t>(id)].computed;
      transfers_.send(
          kv_transfer_flows(prefill_.placement, h.prefill, decode_.placement, d, decode_.memory.kv_per_token, tokens),
          [this, id] { transferred(id); });
    }
  }

  void transferred(int id) {
    Handoff& h = handoffs_[static_cast<std::size_t>(id)];
    h.arrived = engine_.now();
    prefills_[static_cast<std::size_t>(h.prefill)].release_handoff(id);
    decodes_[static_cast<std::size_t>(h.decode)].receive(id);
    start(PoolRole::decode, h.decode);
    start(PoolRole::prefill, h.prefill);  // its freed blocks may admit a waiting prompt
  }

  void sample() {
    std::int64_t queued = 0;
    for (const Replica& r : prefills_) queued += static_cast<std::int64_t>(r.queued());
    for (const Replica& r : decodes_) queued += static_cast<std::int64_t>(r.queued());
    samples_.push_back({engine_.now(), queued});
    if (engine_.now() + sample_every_ < window_) engine_.schedule_in(sample_every_, [this] { sample(); });
  }

  const ServingConfig& config_;
  const PoolModel& prefill_;
  const PoolModel& decode_;
  Time window_;
  Time sample_every_;
  EventEngine engine_;
  RequestSource source_;
  KvTransferNetwork transfers_;
  std::vector<Request> requests_;
  std::vector<Handoff> handoffs_;  ///< by request id
  std::vector<Replica> prefills_, decodes_;
  std::vector<IterationRecord> iterations_;
  std::vector<QueueSample> samples_;
  int next_prefill_ = 0, next_decode_ = 0;
};

}  // namespace

PoolPlacement pool_placement(const Deployment& deployment, PoolRole role) {
  const Deployment prefill = deployment.pool(PoolRole::prefill);
  const Deployment self = deployment.pool(role);
  return {.first_gpu = role == PoolRole::prefill ? 0 : prefill.gpus(), .tp = self.tp, .pp = self.pp};
}

ServingRun simulate_disaggregated(const ServingConfig& config, const PoolModel& prefill, const PoolModel& decode,
                                  const Topology& topology, const std::vector<TraceRequest>* trace) {
  if (prefill.replicas < 1 || decode.replicas < 1) {
    throw InputError({}, "serving.deployment",
                     "a disaggregated deployment needs at least one prefill and one decode replica");
  }
  const int gpus = decode.placement.first_gpu + decode.replicas * decode.placement.gpus_per_replica();
  if (gpus > topology.gpu_count()) {
    throw InputError({}, "serving.deployment",
                     "the prefill and decode pools need " + std::to_string(gpus) + " GPUs; the topology has " +
                         std::to_string(topology.gpu_count()));
  }
  DisaggregatedSim sim(config, prefill, decode, topology, trace);
  return sim.run();
}

}  // namespace cs
