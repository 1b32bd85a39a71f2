#include "sim/serving/request_sim.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "sim/core/event_engine.hpp"
#include "sim/serving/arrival_process.hpp"
#include "sim/serving/replica.hpp"

namespace cs {

namespace {

constexpr int kQueueSamples = 240;

class RequestSim {
 public:
  RequestSim(const ServingConfig& config, const IterationCost& cost, const ReplicaMemory& memory,
             const std::vector<TraceRequest>* trace)
      : config_(config),
        memory_(memory),
        window_(serving_arrival_window(config, trace)),
        source_(config.load, window_, static_cast<std::uint64_t>(config.seed), trace) {
    replicas_.reserve(static_cast<std::size_t>(config.deployment.replicas));
    for (int i = 0; i < config.deployment.replicas; ++i) {
      replicas_.emplace_back(config.engine, cost, memory.blocks, requests_);
    }
    sample_every_ = std::max(Time::ns(1), Time::ns(window_.count_ns() / kQueueSamples));
  }

  ServingRun run() {
    schedule_next_arrival();
    engine_.schedule_at(Time::zero(), [this] { sample(); });
    const Time stop = window_ + config_.drain;
    engine_.run(stop);
    const Time stopped = engine_.pending() > 0 ? stop : engine_.now();
    std::vector<ReplicaStats> stats;
    for (const Replica& r : replicas_) stats.push_back(r.stats());
    ServingRun out;
    out.result = summarise_serving(requests_, stats, memory_, config_.slo, std::move(samples_), window_, stopped);
    out.events = engine_.executed();
    out.requests = std::move(requests_);
    out.iterations = std::move(iterations_);
    return out;
  }

 private:
  void schedule_next_arrival() {
    const std::optional<RequestSpec> next = source_.next();
    if (!next) return;
    engine_.schedule_at(next->arrival, [this, spec = *next] { arrive(spec); });
  }

  void arrive(const RequestSpec& spec) {
    Request r = arriving_request(spec.arrival, spec.prompt, spec.output, config_.engine);
    r.replica = route();
    requests_.push_back(r);
    const auto id = static_cast<int>(requests_.size() - 1);
    if (replicas_[static_cast<std::size_t>(r.replica)].enqueue(id)) start(r.replica);
    schedule_next_arrival();
  }

  int route() {
    const int n = static_cast<int>(replicas_.size());
    if (config_.deployment.routing == Routing::round_robin) return next_replica_++ % n;
    int best = 0;
    for (int i = 1; i < n; ++i) {
      if (replicas_[static_cast<std::size_t>(i)].load() < replicas_[static_cast<std::size_t>(best)].load()) best = i;
    }
    return best;
  }

  void start(int i) {
    Replica& r = replicas_[static_cast<std::size_t>(i)];
    if (r.in_flight()) return;
    if (const std::optional<Time> t = r.start_iteration()) {
      if (static_cast<std::int64_t>(iterations_.size()) < config_.record_iterations) {
        IterationRecord rec{i, engine_.now(), engine_.now() + *t, 0, 0, r.batch().decodes};
        for (const auto& c : r.batch().prefills) {
          rec.prefill_tokens += c.tokens;
          ++rec.prefills;
        }
        iterations_.push_back(rec);
      }
      engine_.schedule_in(*t, [this, i] {
        replicas_[static_cast<std::size_t>(i)].end_iteration(engine_.now());
        start(i);
      });
    }
  }

  void sample() {
    std::int64_t queued = 0;
    for (const Replica& r : replicas_) queued += static_cast<std::int64_t>(r.queued());
    samples_.push_back({engine_.now(), queued});
    if (engine_.now() + sample_every_ < window_) engine_.schedule_in(sample_every_, [this] { sample(); });
  }

  const ServingConfig& config_;
  const ReplicaMemory& memory_;
  Time window_;
  Time sample_every_;
  EventEngine engine_;
  RequestSource source_;
  std::vector<Request> requests_;
  std::vector<Replica> replicas_;
  std::vector<IterationRecord> iterations_;
  std::vector<QueueSample> samples_;
  int next_replica_ = 0;
};

}  // namespace

Time serving_arrival_window(const ServingConfig& c, const std::vector<TraceRequest>* trace) {
  if (c.load.arrivals != ArrivalKind::trace) return c.duration.value_or(kDefaultServingDuration);
  const Time span = trace && !trace->empty() ? trace->back().arrival + Time::ns(1) : Time::ns(1);
  return c.duration ? std::min(*c.duration, span) : span;
}

Request arriving_request(Time arrival, std::int64_t prompt, std::int64_t output, const EngineConfig& engine) {
  Request r;
  r.arrival = arrival;
  r.prompt = prompt;
  r.output = std::max<std::int64_t>(1, output);
  // The prefix cache holds whole blocks of the prompt; at least its last token is computed.
  const std::int64_t block = engine.block_size;
  const auto hit = static_cast<std::int64_t>(engine.prefix_cache_hit_rate * static_cast<double>(r.prompt));
  r.prefix_hit = std::min(r.prompt - 1, hit / block * block);
  return r;
}

ServingRun simulate_serving(const ServingConfig& config, const IterationCost& cost, const ReplicaMemory& memory,
                            const std::vector<TraceRequest>* trace) {
  RequestSim sim(config, cost, memory, trace);
  return sim.run();
}

}  // namespace cs
