#include "sim/schedule/schedule_model.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/collectives/network_options.hpp"
#include "sim/facility/price_book.hpp"
#include "sim/facility/tco_model.hpp"
#include "sim/scenario/facility_link.hpp"
#include "sim/scenario/runner.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/serving/iteration_cost.hpp"
#include "sim/serving/replica_comm.hpp"
#include "sim/serving/serving_runner.hpp"

namespace cs {
namespace {

/// A job's scenario at `gpus` GPUs (dp follows when the scenario says auto), errors located at the schedule.
Scenario load_at(const std::string& path, int gpus, const SourceLocation& where, const std::string& key,
                 const ScenarioHook& hook, std::vector<Setting> set = {}) {
  try {
    if (gpus > 0) set.push_back({"cluster.gpus", std::to_string(gpus)});
    Scenario sc = load_scenario(InputNode::load_file(path, set));
    if (hook) hook(sc);
    return sc;
  } catch (const InputError& e) {
    throw InputError(where, key, std::string("its scenario does not load: ") + e.what());
  }
}

void cluster_model(const ScheduleConfig& cfg, ScheduleRun& run, const ScenarioHook& hook) {
  Scenario sc = load_at(cfg.cluster.scenario, cfg.cluster.gpus, {cfg.path, 0, 0}, "cluster.scenario", hook);
  ClusterModel& c = run.cluster;
  c.gpus = sc.gpus;
  c.gpus_per_node = sc.topology.node().gpus;
  c.span_s = cfg.span.seconds();
  c.policy = cfg.policy;
  c.preemption = cfg.preemption;
  c.isolation = cfg.isolation;
  c.quotas = cfg.quotas;
  c.gpu_memory = sc.profile.gpu.memory.value();
  c.seed = static_cast<std::uint64_t>(cfg.seed);
  if (cfg.cluster.circuit) c.circuit_w = cfg.cluster.circuit->value();
  const auto& rel = sc.facility.reliability;
  const auto per_s = [](Time mtbf) { return mtbf.seconds() > 0 ? 1.0 / mtbf.seconds() : 0.0; };
  if (cfg.failures) {
    c.node_failure_rate_per_s = per_s(rel.node_mtbf) + per_s(rel.software_mtbf) +
                                c.gpus_per_node * (per_s(rel.gpu_mtbf) + per_s(rel.link_mtbf));
  }
  c.repair_s = rel.repair_time.seconds();
  // Power and cost from the facility layer: the cluster priced as if it computed all year.
  const PriceBook book = sc.pricebook.empty() ? PriceBook::load_default() : PriceBook::load(sc.pricebook);
  RunProfile profile;
  profile.step_time = Time::from_seconds(1.0);
  profile.fractions = fractions_from_times(Time::from_seconds(1.0), Time::zero(), Time::zero(), Time::zero());
  profile.tokens_per_step = 1;
  profile.token_budget = 1;
  profile.parameter_count = 1;
  profile.gpu = sc.profile.gpu;
  TcoReport t;
  try {
    t = compute_tco(sc.facility, make_inventory(sc, book), profile, book);
  } catch (const InputError& e) {
    throw InputError({cfg.path, 0, 0}, "cluster.scenario", std::string("the cluster cannot be priced: ") + e.what());
  }
  const auto& p = t.power;
  c.gpu_idle_w = p.curve.idle.value();
  c.gpu_tdp_w = sc.profile.gpu.tdp.value();
  c.memory_bound_load = sc.facility.power.memory_bound_load;
  c.node_base_w = (p.node_idle - p.curve.idle * c.gpus_per_node).value();
  c.fabric_w = (p.switch_power + p.transceiver_power + p.other_power).value();
  c.pue = p.pue;
  c.fixed_usd_per_s = t.fixed_per_year.value() / 3600.0;  // DollarRate is in dollars per hour
  c.usd_per_joule = p.facility_average.value() > 0 ? t.electricity_busy_per_year.value() / 3600.0 / p.facility_average.value() : 0;
  run.notes.push_back(fmt::format("cluster: {} GPUs ({} per node), {:.0f} W per idle GPU, PUE {:.2f}, fixed cost "
                                  "${:.2f} per GPU-hour, electricity ${:.3f}/kWh",
                                  c.gpus, c.gpus_per_node, c.gpu_idle_w, c.pue, c.fixed_usd_per_s * 3600 / c.gpus,
                                  c.usd_per_joule * 3.6e6));
  run.notes.push_back("power curve: " + p.curve.source);
}

WorkJob training_job(const TrainingJobSpec& spec, std::vector<std::string>& notes, const ScenarioHook& hook) {
  WorkJob j;
  j.name = spec.name;
  j.tenant = spec.tenant;
  j.kind = JobKind::training;
  j.priority = spec.priority;
  j.submit_s = spec.submit.seconds();
  j.checkpoint_s = spec.checkpoint_interval.seconds();
  const Scenario top = load_at(spec.scenario, spec.gpus > 0 ? spec.gpus : spec.max_gpus, spec.where, "training", hook,
                               spec.set);
  const int unit = top.plan.tp * top.plan.pp * top.plan.cp;
  std::vector<int> sizes;
  if (spec.min_gpus > 0) {
    for (int g = spec.min_gpus; g <= spec.max_gpus; ++g) {
      if (g % unit == 0) sizes.push_back(g);
    }
    if (sizes.empty()) {
      throw InputError(spec.where, "training." + spec.name + ".min_gpus",
                       fmt::format("no size in [{}, {}] is a multiple of tp x pp x cp = {}", spec.min_gpus,
                                   spec.max_gpus, unit));
    }
    // At most eight sizes, spread from the smallest to the largest.
    if (sizes.size() > 8) {
      std::vector<int> picked;
      for (int k = 0; k < 8; ++k) picked.push_back(sizes[k * (sizes.size() - 1) / 7]);
      picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
      sizes = picked;
    }
  } else {
    sizes.push_back(top.gpus);
  }
  std::vector<std::pair<int, double>> ok;  // (gpus, tokens/s)
  double memory = 0, power = top.profile.gpu.tdp.value();
  std::string skipped;
  for (int g : sizes) {
    try {
      const Scenario sc = g == top.gpus ? top : load_at(spec.scenario, g, spec.where, "training", hook, spec.set);
      const RunResult r = run_scenario(sc);
      if (!r.fits_in_memory) {
        skipped += fmt::format(" {} (out of memory)", g);
        continue;
      }
      ok.push_back({g, r.tokens_per_s});
      if (g == sizes.back() || memory == 0) memory = r.memory.total().value();
      if (r.tco) power = r.tco->power.gpu_average.value();
    } catch (const InputError&) {
      if (spec.min_gpus == 0) throw;
      skipped += fmt::format(" {} (does not divide)", g);
    }
  }
  if (ok.empty()) throw InputError(spec.where, "training." + spec.name, "runs at none of its sizes:" + skipped);
  const double best = ok.back().second;
  for (const auto& [g, tps] : ok) {
    j.sizes.push_back(g);
    j.speed.push_back(tps / best);
  }
  const double tokens = spec.tokens ? *spec.tokens : top.training.token_budget.value_or(0.0);
  if (tokens <= 0) {
    throw InputError(spec.where, "training." + spec.name + ".tokens",
                     "no token budget: give tokens here or training.tokens in the scenario");
  }
  j.work_s = tokens / best;
  j.restart_s = spec.restart ? spec.restart->seconds() : top.facility.reliability.restart_overhead.seconds();
  j.memory_per_gpu = memory;
  j.power_per_gpu_w = power;
  std::string sz;
  for (std::size_t k = 0; k < j.sizes.size(); ++k) sz += fmt::format(" {}:{:.2f}", j.sizes[k], j.speed[k]);
  notes.push_back(fmt::format("{}: {:.3g} tokens at {:.0f} tokens/s on {} GPUs = {:.1f} h alone; speed by size{}{}",
                              spec.name, tokens, best, j.sizes.back(), j.work_s / 3600, sz,
                              skipped.empty() ? "" : "; skipped" + skipped));
  return j;
}

WorkJob batch_job(const BatchJobSpec& spec) {
  WorkJob j;
  j.name = spec.name;
  j.tenant = spec.tenant;
  j.kind = JobKind::batch;
  j.sizes = {spec.gpus};
  j.speed = {1.0};
  j.work_s = spec.duration.seconds();
  j.submit_s = spec.submit.seconds();
  j.priority = spec.priority;
  j.checkpoint_s = 1e18;  // no checkpoints: a failure loses all its progress
  j.memory_per_gpu = spec.memory_per_gpu.value();
  return j;
}

/// One service replica simulated at a steady request rate, memoised: the hour-by-hour evaluation and the
/// autoscaler's capacity search call it with the same rates many times.
class ServiceEvaluator {
 public:
  explicit ServiceEvaluator(Scenario sc)
      : sc_(std::move(sc)),
        compute_(make_cost_model(sc_.profile, sc_.facility.power.gpu_power_cap)),
        comm_(sc_.topology, sc_.serving->deployment.tp, collective_calibration(sc_.network)) {}

  /// `rate` requests/s per replica with every iteration `slowdown` times slower: the same run at rate x slowdown
  /// with the SLO divided by slowdown, its latencies times slowdown (a uniform slowdown only rescales time).
  HourService evaluate(double rate, double slowdown) {
    const double r = rate * slowdown;
    const auto key = std::make_pair(bucket(r), bucket(slowdown));
    {
      std::lock_guard lock(mu_);
      if (auto it = memo_.find(key); it != memo_.end()) return it->second.hour;
    }
    ServingConfig c = one_replica_at(*sc_.serving, r, steady_probe_duration(r));
    c.slo.ttft = Time::from_seconds(c.slo.ttft.seconds() / slowdown);
    c.slo.tpot = Time::from_seconds(c.slo.tpot.seconds() / slowdown);
    const ServingRun run = run_serving(c, sc_.model, *compute_, comm_, sc_.profile.gpu.memory);
    const ServingResult& s = run.result;
    HourService h;
    h.attainment = slo_attainment(s);
    if (s.finished > 0) {
      h.ttft_p99_s = s.ttft.p99_s * slowdown;
      if (s.tpot.count > 0) h.tpot_p99_s = s.tpot.p99_s * slowdown;
    }
    h.busy = std::clamp(s.gpu_busy, 0.0, 1.0);
    std::lock_guard lock(mu_);
    memo_[key] = Evaluated{h, s};
    return h;
  }

  /// The most requests/s one replica serves with `target` of them within the SLO (bisection on the rate).
  double capacity(double target) {
    if (capacity_ > 0) return capacity_;
    double lo = 0, hi = 0.5;
    while (evaluate(hi, 1).attainment >= target && hi < 1e5) lo = hi, hi *= 2;
    for (int i = 0; i < 10; ++i) {
      const double mid = 0.5 * (lo + hi);
      (evaluate(mid, 1).attainment >= target ? lo : hi) = mid;
    }
    capacity_ = lo;
    // The run at capacity itself (memoised above, so the bucket's run, never whichever ran last).
    const double at = std::max(lo, 1e-3);
    (void)evaluate(at, 1);
    std::lock_guard lock(mu_);
    at_capacity_ = memo_.at(std::make_pair(bucket(at), bucket(1))).run;
    return capacity_;
  }

  /// The iteration the co-location model prices: mean wall time at capacity, kernels of a decode batch as
  /// large as the mean one there.
  IterationShape iteration() const {
    IterationShape it;
    const ServingResult& s = at_capacity_;
    it.cuda_graphs = sc_.serving->engine.cuda_graphs;
    if (s.iterations > 0) it.wall = Time::from_seconds(s.gpu_busy * s.makespan.seconds() / s.iterations);
    IterationCost cost(sc_.model, sc_.serving->deployment, sc_.serving->engine, *compute_, comm_);
    BatchShape b;
    b.decodes = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::lround(s.mean_decode_batch)));
    b.decode_context = b.decodes * 1024;
    it.kernels = cost.breakdown(b).kernels;
    return it;
  }

  [[nodiscard]] const ServingResult& at_capacity() const { return at_capacity_; }
  [[nodiscard]] const Scenario& scenario() const { return sc_; }

 private:
  static long bucket(double x) { return std::lround(std::log(std::max(x, 1e-9)) / std::log(1.02)); }

  Scenario sc_;
  std::unique_ptr<ComputeCostModel> compute_;
  TopologyComm comm_;
  std::mutex mu_;
  struct Evaluated {
    HourService hour;
    ServingResult run;  ///< the run's result, for the one at capacity
  };
  std::map<std::pair<long, long>, Evaluated> memo_;
  ServingResult at_capacity_;
  double capacity_ = 0;
};

/// A service given by measured latency against batch size (measured_service.hpp): sized each hour by probing one
/// replica's batcher at the hour's rate per replica; co-located as a replica whose iteration is one batch.
ServiceModel measured_service_model(const ScheduleConfig& cfg, const ServiceSpec& spec, const ColocationParams& params,
                                    const ClusterModel& cluster, std::vector<std::string>& notes) {
  const MeasuredServiceSpec& ms = *spec.measured;
  if (ms.gpus > cluster.gpus_per_node && cluster.isolation != Isolation::nodes) {
    throw InputError(ms.where, "services." + spec.name + ".measured.gpus",
                     fmt::format("a replica of {} GPUs spans nodes of {}", ms.gpus, cluster.gpus_per_node));
  }
  ReplicaProbeSpec probe;
  probe.batching.max_batch = ms.max_batch > 0 ? ms.max_batch : ms.latency.back().batch;
  probe.batching.max_queue_delay_s = ms.max_queue_delay.seconds();
  probe.slo_s = ms.slo.seconds();
  probe.arrivals = ms.arrivals;
  probe.seed = static_cast<std::uint64_t>(ms.seed);
  auto model = std::make_shared<MeasuredReplicaModel>(LatencyCurve(ms.latency), probe, spec.target_attainment);
  const LatencyCurve& curve = model->curve();
  // A lone request waits the whole queue delay and then runs as a batch of one: the least latency there is at
  // low load, so an SLO below it is met at no rate.
  const double lone = ms.max_queue_delay.seconds() + curve.at(1);
  if (lone > probe.slo_s) {
    throw InputError(ms.where, "services." + spec.name + ".measured.slo",
                     fmt::format("a lone request takes {:.3g} ms (max_queue_delay + the batch of 1), above the {:.3g} "
                                 "ms SLO: met at no rate",
                                 lone * 1e3, probe.slo_s * 1e3));
  }
  ServiceModel m;
  m.name = spec.name;
  m.tenant = spec.tenant;
  m.measured = true;
  m.gpus_per_replica = ms.gpus;
  m.min_replicas = spec.min_replicas;
  m.max_replicas = spec.max_replicas;
  m.priority = spec.priority;
  m.rate = spec.rate;
  m.replicas_for = [model](double rate) { return model->replicas_for(rate); };
  m.evaluate = [model](double rate, double slowdown) {
    const ReplicaProbe p = model->evaluate(rate, slowdown);
    HourService h;
    h.attainment = p.attainment;
    h.busy = p.busy;
    if (p.requests > 0) h.latency_p99_s = p.latency_p99_s;
    return h;
  };
  // The co-located iteration is one batch of the mean size at the busiest hour's rate per replica.
  const double peak = *std::max_element(spec.rate.begin(), spec.rate.end());
  const int peak_replicas = std::clamp(model->replicas_for(peak), std::max(1, spec.min_replicas), spec.max_replicas);
  const ReplicaProbe at_peak = model->evaluate(peak / peak_replicas, 1.0);
  const int batch = std::clamp(static_cast<int>(std::lround(at_peak.mean_batch)), 1, probe.batching.max_batch);
  IterationShape it;
  it.wall = Time::from_seconds(curve.at(batch));
  it.cuda_graphs = ms.cuda_graphs;
  ColocationParams p = params;
  if (ms.gpu_share) p.graph_gpu_share = p.eager_gpu_share = *ms.gpu_share;
  m.colocation = colocate(cfg.isolation, it, p, spec.mps_limit, spec.mig_slices);
  m.memory_per_gpu = ms.memory.value() / ms.gpus;
  const double load = cluster.memory_bound_load + ms.compute_bound_share * (1 - cluster.memory_bound_load);
  m.power_per_gpu_busy_w = cluster.gpu_idle_w + load * (cluster.gpu_tdp_w - cluster.gpu_idle_w);
  notes.push_back(fmt::format("{}: measured latency, {} points (batch 1: {:.2f} ms, batch {}: {:.2f} ms), batcher "
                              "max_batch {} and max_queue_delay {:.2f} ms, SLO {:.1f} ms for {:.0f}% of requests; "
                              "{} replicas of {} GPUs at the peak {:.0f} requests/s (mean batch {:.1f}, p99 {:.2f} "
                              "ms); co-located: {} (x{:.2f} batch, training at {:.0f}%)",
                              spec.name, ms.latency.size(), curve.at(1) * 1e3, curve.largest_batch(),
                              curve.at(curve.largest_batch()) * 1e3, probe.batching.max_batch,
                              probe.batching.max_queue_delay_s * 1e3, probe.slo_s * 1e3,
                              100 * spec.target_attainment, peak_replicas, ms.gpus, peak, at_peak.mean_batch,
                              at_peak.latency_p99_s * 1e3, m.colocation.mechanism, m.colocation.replica_slowdown,
                              100 * m.colocation.training_rate));
  return m;
}

ServiceModel service_model(const ScheduleConfig& cfg, const ServiceSpec& spec, const ColocationParams& params,
                           const ClusterModel& cluster, std::vector<std::shared_ptr<ServiceEvaluator>>& keep,
                           std::vector<std::string>& notes, const ScenarioHook& hook) {
  Scenario sc;
  try {
    // One replica on its own GPUs: the replica's tp x pp read first, then the scenario loaded at that size.
    int gpr = 1;
    {
      const InputNode probe = InputNode::load_file(spec.scenario, spec.set);
      if (auto serving = probe.find("serving")) {
        if (auto d = serving->find("deployment")) {
          gpr = d->get_or<int>("tp", 1) * d->get_or<int>("pp", 1);
        }
      }
    }
    std::vector<Setting> set = spec.set;
    set.push_back({"serving.deployment.replicas", "1"});
    set.push_back({"cluster.gpus", std::to_string(std::max(1, gpr))});
    sc = load_scenario(InputNode::load_file(spec.scenario, set));
    if (hook) hook(sc);
  } catch (const InputError& e) {
    throw InputError(spec.where, "services", std::string("its scenario does not load: ") + e.what());
  }
  if (!sc.serving) throw InputError(spec.where, "services." + spec.name + ".scenario", "is not a serving scenario");
  const int gpr = sc.serving->deployment.gpus_per_replica();
  if (gpr > cluster.gpus_per_node && cluster.isolation != Isolation::nodes) {
    throw InputError(spec.where, "services." + spec.name,
                     fmt::format("a replica of {} GPUs spans nodes of {}", gpr, cluster.gpus_per_node));
  }
  auto eval = std::make_shared<ServiceEvaluator>(std::move(sc));
  keep.push_back(eval);
  ServiceModel m;
  m.name = spec.name;
  m.tenant = spec.tenant;
  m.gpus_per_replica = gpr;
  m.min_replicas = spec.min_replicas;
  m.max_replicas = spec.max_replicas;
  m.priority = spec.priority;
  m.rate = spec.rate;
  const double cap = eval->capacity(spec.target_attainment);
  if (cap <= 0) {
    throw InputError(spec.where, "services." + spec.name,
                     "one replica meets the SLO for no request rate (check the SLO and the lengths)");
  }
  m.replicas_for = [cap](double rate) { return static_cast<int>(std::ceil(rate / cap - 1e-9)); };
  m.evaluate = [eval](double rate, double slowdown) { return eval->evaluate(rate, slowdown); };
  const IterationShape it = eval->iteration();
  m.colocation = colocate(cfg.isolation, it, params, spec.mps_limit, spec.mig_slices);
  const ServingResult& s = eval->at_capacity();
  const ReplicaMemory& mem = s.memory;
  const auto& engine = eval->scenario().serving->engine;
  m.memory_per_gpu = engine.kv_cache_memory ? (mem.weights + mem.activations + mem.kv_cache).value()
                                            : mem.usable.value();
  // Decode is memory-bound: the facility's memory-bound load between idle and TDP (facility.power).
  const Scenario& ssc = eval->scenario();
  m.power_per_gpu_busy_w = cluster.gpu_idle_w + ssc.facility.power.memory_bound_load *
                                                    (ssc.profile.gpu.tdp.value() - cluster.gpu_idle_w);
  notes.push_back(fmt::format("{}: one replica ({} GPUs) serves {:.2f} requests/s with {:.0f}% within the SLO; "
                              "iteration {:.2f} ms, {} kernels; holds {:.1f} GB per GPU; co-located: {} (x{:.2f} "
                              "iteration, training at {:.0f}%)",
                              spec.name, gpr, cap, 100 * spec.target_attainment, it.wall.seconds() * 1e3, it.kernels,
                              m.memory_per_gpu / 1e9, m.colocation.mechanism, m.colocation.replica_slowdown,
                              100 * m.colocation.training_rate));
  return m;
}

}  // namespace

ScheduleRun run_schedule(const ScheduleConfig& config, const ScenarioHook& hook) {
  ScheduleRun run;
  run.config = config;
  const auto t0 = std::chrono::steady_clock::now();
  cluster_model(config, run, hook);
  const ColocationParams params =
      config.colocation.empty() ? ColocationParams::shipped() : load_colocation_params(config.colocation);
  // Partitions resolved against the cluster's nodes; each job takes its partition's nodes, tier and max_time.
  struct Partition {
    std::vector<int> nodes;
    int tier = 0;
    double max_run_s = 0;
  };
  std::map<std::string, Partition> partitions;
  {
    const int per = run.cluster.gpus_per_node;
    const int node_count = (run.cluster.gpus + per - 1) / per;
    int next = 0;
    for (const auto& p : config.partitions) {
      Partition& r = partitions[p.name];
      r.nodes = partition_nodes(p, next, node_count);
      r.tier = p.priority_tier;
      r.max_run_s = p.max_time ? p.max_time->seconds() : 0.0;
      next = r.nodes.back() + 1;
      std::string list;
      for (int n : r.nodes) list += (list.empty() ? "" : ",") + std::to_string(n);
      run.notes.push_back(fmt::format("partition {}: nodes {} ({} GPUs), max_time {}, priority tier {}{}", p.name, list,
                                      static_cast<int>(r.nodes.size()) * per,
                                      p.max_time ? fmt::format("{:.1f} h", r.max_run_s / 3600) : "none", r.tier,
                                      p.tenants.empty() ? "" : ", tenants " + fmt::format("{}", fmt::join(p.tenants, ", "))));
    }
  }
  const auto in_partition = [&](WorkJob& j, const std::string& name) {
    if (name.empty()) return;
    const Partition& p = partitions.at(name);
    j.partition = name;
    j.nodes = p.nodes;
    j.tier = p.tier;
    j.max_run_s = p.max_run_s;
  };
  for (const auto& spec : config.training) {
    run.jobs.push_back(training_job(spec, run.notes, hook));
    in_partition(run.jobs.back(), spec.partition);
  }
  for (const auto& spec : config.batch) {
    run.jobs.push_back(batch_job(spec));
    in_partition(run.jobs.back(), spec.partition);
  }
  for (const auto& trace : config.traces) {
    TraceRead read;
    try {
      read = read_job_trace(trace.file, trace.format, trace.limit, trace.offset, trace.tenant);
    } catch (const InputError& e) {
      throw InputError(trace.where, "traces", std::string("the trace does not read: ") + e.what());
    }
    for (const TraceJob& t : read.jobs) {
      BatchJobSpec b;
      b.name = t.name;
      b.tenant = t.tenant;
      b.gpus = t.gpus;
      b.duration = Time::from_seconds(t.duration_s);
      b.submit = Time::from_seconds(t.submit_s);
      b.priority = t.priority;
      run.jobs.push_back(batch_job(b));
      in_partition(run.jobs.back(), trace.partition);
    }
    run.notes.push_back(fmt::format("trace {} ({}): {} jobs read as batch jobs, {} rows skipped (no GPUs or no "
                                    "run time)",
                                    trace.file, trace_format_names().name(trace.format), read.jobs.size(),
                                    read.skipped));
  }
  std::vector<std::shared_ptr<ServiceEvaluator>> keep;
  for (const auto& spec : config.services) {
    run.services.push_back(spec.measured ? measured_service_model(config, spec, params, run.cluster, run.notes)
                                         : service_model(config, spec, params, run.cluster, keep, run.notes, hook));
  }
  const auto t1 = std::chrono::steady_clock::now();
  run.result = simulate_cluster(run.cluster, run.jobs, run.services);
  const auto t2 = std::chrono::steady_clock::now();
  run.model_s = std::chrono::duration<double>(t1 - t0).count();
  run.simulate_s = std::chrono::duration<double>(t2 - t1).count();
  for (const auto& o : run.result.jobs) {
    if (!o.never_fits.empty()) run.result.warnings.push_back(o.name + " can never run: " + o.never_fits);
  }
  return run;
}

}  // namespace cs
