#include "sim/search/serving_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "sim/collectives/network_options.hpp"
#include "sim/facility/price_book.hpp"
#include "sim/facility/tco_model.hpp"
#include "sim/scenario/facility_link.hpp"
#include "sim/scenario/service_run.hpp"
#include "sim/serving/iteration_cost.hpp"
#include "sim/serving/replica_comm.hpp"
#include "sim/serving/replica_memory.hpp"
#include "sim/serving/serving_runner.hpp"

namespace cs {
namespace {

/// Costs within a cent an hour tie (the power drawn differs in the last digits between equal deployments).
constexpr double kCostTie = 0.01;

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int k = 1; k <= n; ++k) {
    if (n % k == 0) out.push_back(k);
  }
  return out;
}

template <class T>
std::vector<T> with_own(std::vector<T> values, T own) {
  if (std::find(values.begin(), values.end(), own) == values.end()) values.push_back(own);
  std::sort(values.begin(), values.end());
  return values;
}

/// What every candidate shares: the scenario, the price book and inventory, and the search's settings.
struct SearchContext {
  const Scenario& sc;
  const ServingPlanOptions& options;
  int max_gpus = 0;
  std::optional<PriceBook> book;  ///< absent when the cluster cannot be priced (costs are then 0)
  std::optional<ClusterInventory> inventory;
};

/// The owned cluster's price of a GPU-hour at the mix of prefill, decode and idle time of `s` (the serving
/// report's own pricing of a window); 0 when the cluster cannot be priced or nothing finished.
double usd_per_gpu_hour(const SearchContext& ctx, const ServingResult& s) {
  if (!ctx.inventory || s.finished == 0 || s.makespan <= Time::zero()) return 0;
  try {
    return compute_tco(ctx.sc.facility, *ctx.inventory, service_profile(ctx.sc, s), *ctx.book)
        .owned_per_gpu_hour.value();
  } catch (const InputError&) {
    return 0;
  }
}

/// One candidate: the fewest replicas meeting the SLO by bisection over one-replica probes.
ServingCandidate evaluate(const SearchContext& ctx, const ComputeCostModel& compute, Deployment d,
                          const EngineConfig& engine) {
  const Scenario& sc = ctx.sc;
  const ServingConfig& base = *sc.serving;
  ServingCandidate c;
  c.engine = engine;
  // The shallowest pipeline whose weights fit (a deeper one adds memory but no throughput here).
  std::string misfit;
  bool fits = false;
  for (int pp = 1; d.tp * pp <= ctx.max_gpus && pp <= sc.model.layers; pp *= 2) {
    d.pp = pp;
    try {
      (void)plan_replica_memory(ShardedModel(sc.model, d), engine, sc.profile.gpu.memory);
      fits = true;
      break;
    } catch (const InputError& e) {
      if (misfit.empty()) misfit = e.message();
    }
  }
  if (!fits) d.pp = 1;
  d.replicas = std::max(1, ctx.max_gpus / d.gpus_per_replica());
  c.deployment = d;
  c.description = describe_deployment(d, engine);
  if (!fits) {
    c.fits = false;
    c.reason = misfit;
    c.gpus = d.gpus();
    return c;
  }
  const TopologyComm comm(sc.topology, d.tp, collective_calibration(sc.network));
  const IterationCost cost(sc.model, d, engine, compute, comm);
  const ReplicaMemory memory = plan_replica_memory(cost.sharded(), engine, sc.profile.gpu.memory);
  const double rate = base.load.rate;
  std::map<int, ServingResult> probed;
  const auto probe = [&](int replicas) -> const ServingResult& {
    if (auto it = probed.find(replicas); it != probed.end()) return it->second;
    const double r = rate / replicas;
    ServingConfig config = base;
    config.deployment = d;
    config.engine = engine;
    config = one_replica_at(config, r, ctx.options.probe_duration.value_or(plan_probe_duration(base, r)));
    ++c.probes;
    return probed.emplace(replicas, simulate_serving(config, cost, memory).result).first->second;
  };
  const double target = base.slo.attainment;
  const int most = d.replicas;
  int chosen = most;
  if (slo_attainment(probe(most)) >= target) {
    c.meets_slo = true;
    int lo = 0;  // known to miss (no replica serves nothing)
    while (chosen - lo > 1) {
      const int mid = (lo + chosen) / 2;
      (slo_attainment(probe(mid)) >= target ? chosen : lo) = mid;
    }
  }
  const ServingResult& s = probe(chosen);
  c.deployment.replicas = chosen;
  c.gpus = c.deployment.gpus();
  c.slo_attainment = slo_attainment(s);
  c.probe_requests = s.arrived;
  c.ttft_p99_s = s.ttft.p99_s;
  c.tpot_p99_s = s.tpot.p99_s;
  c.tokens_per_s = (s.input_tokens_per_s + s.output_tokens_per_s) * chosen;
  c.usd_per_gpu_hour = usd_per_gpu_hour(ctx, s);
  c.cost_usd_per_hour = c.usd_per_gpu_hour * c.gpus;
  if (c.tokens_per_s > 0) c.usd_per_million_tokens = c.cost_usd_per_hour / (c.tokens_per_s * 3600) * 1e6;
  if (!c.meets_slo) {
    c.reason = fmt::format(
        "misses the SLO: {:.1f}% of requests within it at {} replica{} ({} GPU{}, the most the "
        "cluster holds), under the {:.1f}% target{}",
        100 * c.slo_attainment, chosen, chosen == 1 ? "" : "s", c.gpus, c.gpus == 1 ? "" : "s", 100 * target,
        s.queue.unbounded ? "; the queue grew without bound" : "");
  }
  return c;
}

/// A disaggregated candidate: `prefill` replicas in the prefill pool and the fewest decode replicas that meet the
/// SLO, by bisection over whole-service runs (the pools feed each other, so one replica does not stand for the
/// service). A split that misses with every decode replica the cluster leaves is reported at that most.
ServingCandidate evaluate_split(const SearchContext& ctx, const ComputeCostModel& compute, int prefill) {
  const Scenario& sc = ctx.sc;
  const ServingConfig& base = *sc.serving;
  ServingCandidate c;
  c.engine = base.engine;
  Deployment d = base.deployment;
  d.prefill.replicas = prefill;
  const int per_prefill = d.pool(PoolRole::prefill).gpus_per_replica();
  d.decode.replicas = 1;
  const int per_decode = d.pool(PoolRole::decode).gpus_per_replica();
  const int most = std::max(1, (ctx.max_gpus - prefill * per_prefill) / per_decode);
  const double rate = base.load.rate;
  const Time duration = ctx.options.probe_duration.value_or(plan_probe_duration(base, rate));
  std::map<int, ServingResult> probed;
  const auto probe = [&](int decode) -> const ServingResult& {
    if (auto it = probed.find(decode); it != probed.end()) return it->second;
    ServingConfig config = base;
    config.deployment = d;
    config.deployment.decode.replicas = decode;
    config.load.arrivals = ArrivalKind::poisson;
    config.duration = duration;
    ++c.probes;
    return probed.emplace(decode, simulate_service(sc, config, compute).result).first->second;
  };
  try {
    (void)probe(most);
  } catch (const InputError& e) {
    d.decode.replicas = most;
    c.deployment = d;
    c.description = describe_deployment(d, c.engine);
    c.fits = false;
    c.reason = e.message();
    c.gpus = d.gpus();
    return c;
  }
  const double target = base.slo.attainment;
  int chosen = most;
  if (slo_attainment(probe(most)) >= target) {
    c.meets_slo = true;
    int lo = 0;  // no decode replica serves nothing
    while (chosen - lo > 1) {
      const int mid = (lo + chosen) / 2;
      (slo_attainment(probe(mid)) >= target ? chosen : lo) = mid;
    }
  }
  const ServingResult& s = probe(chosen);
  d.decode.replicas = chosen;
  c.deployment = d;
  c.description = describe_deployment(d, c.engine);
  c.gpus = d.gpus();
  c.slo_attainment = slo_attainment(s);
  c.probe_requests = s.arrived;
  c.ttft_p99_s = s.ttft.p99_s;
  c.tpot_p99_s = s.tpot.p99_s;
  c.tokens_per_s = s.input_tokens_per_s + s.output_tokens_per_s;  // the whole service's
  c.usd_per_gpu_hour = usd_per_gpu_hour(ctx, s);
  c.cost_usd_per_hour = c.usd_per_gpu_hour * c.gpus;
  if (c.tokens_per_s > 0) c.usd_per_million_tokens = c.cost_usd_per_hour / (c.tokens_per_s * 3600) * 1e6;
  if (!c.meets_slo) {
    c.reason = fmt::format(
        "misses the SLO: {:.1f}% of requests within it with {} prefill and {} decode replica{} ({} GPUs, the most "
        "the cluster holds beside {} prefill), under the {:.1f}% target{}",
        100 * c.slo_attainment, prefill, chosen, chosen == 1 ? "" : "s", c.gpus, prefill, 100 * target,
        s.queue.unbounded ? "; the queue grew without bound" : "");
  }
  return c;
}

/// Best first: those that meet the SLO by cost per hour (to the cent), then GPUs, then TTFT p99; then those that fit
/// but miss, closest first; then those that do not fit.
bool ranks_before(const ServingCandidate& a, const ServingCandidate& b) {
  const auto group = [](const ServingCandidate& c) { return c.meets_slo ? 0 : c.fits ? 1 : 2; };
  if (group(a) != group(b)) return group(a) < group(b);
  if (a.meets_slo) {
    // Whole cents, so that costs equal but for the last digits of the power drawn tie (and the order stays a
    // strict weak one).
    const auto cents = [](const ServingCandidate& c) { return std::llround(c.cost_usd_per_hour / kCostTie); };
    if (cents(a) != cents(b)) return cents(a) < cents(b);
    if (a.gpus != b.gpus) return a.gpus < b.gpus;
    return a.ttft_p99_s < b.ttft_p99_s;
  }
  if (a.fits && a.slo_attainment != b.slo_attainment) return a.slo_attainment > b.slo_attainment;
  return a.description < b.description;
}

std::string why_lost(const ServingCandidate& c, const ServingCandidate& above) {
  if (!c.meets_slo) return c.reason;
  if (c.gpus != above.gpus) {
    return fmt::format("needs {} replicas = {} GPUs against {} GPUs (+${:.2f} per hour)", replica_count(c.deployment),
                       c.gpus, above.gpus, c.cost_usd_per_hour - above.cost_usd_per_hour);
  }
  if (std::llround(c.cost_usd_per_hour / kCostTie) != std::llround(above.cost_usd_per_hour / kCostTie)) {
    return fmt::format("the same {} GPUs at +${:.2f} per hour: more of their time computing, so more power drawn",
                       c.gpus, c.cost_usd_per_hour - above.cost_usd_per_hour);
  }
  if (c.ttft_p99_s == above.ttft_p99_s && c.tpot_p99_s == above.tpot_p99_s) {
    return "the same GPUs, cost and latencies: its engine limits do not bind at this load";
  }
  return fmt::format("ties on GPUs and cost; TTFT p99 {:.0f} ms against {:.0f} ms", 1e3 * c.ttft_p99_s,
                     1e3 * above.ttft_p99_s);
}

/// The best deployment as a whole service at the scenario's own duration, routing and seed.
ServiceCheck check_whole_service(const Scenario& sc, const ServingCandidate& best) {
  ServingConfig config = *sc.serving;
  config.deployment = best.deployment;
  config.engine = best.engine;
  const auto compute = make_cost_model(sc.profile, sc.facility.power.gpu_power_cap);
  const ServingRun run = simulate_service(sc, config, *compute);
  ServiceCheck check;
  check.slo_attainment = slo_attainment(run.result);
  check.ttft_p99_s = run.result.ttft.p99_s;
  check.tpot_p99_s = run.result.tpot.p99_s;
  check.requests = run.result.arrived;
  check.duration_s = config.duration.value_or(kDefaultServingDuration).seconds();
  return check;
}

/// Evaluates candidates 0 .. n-1 with `evaluate_one(compute, i)` on the search's threads (each with its own cost
/// model), then ranks them, says why each lost, and checks the best as a whole service.
ServingPlan evaluate_all(const SearchContext& ctx, std::size_t n,
                         const std::function<ServingCandidate(const ComputeCostModel&, std::size_t)>& evaluate_one,
                         std::chrono::steady_clock::time_point t0) {
  const Scenario& sc = ctx.sc;
  const ServingConfig& base = *sc.serving;
  ServingPlan plan;
  plan.scenario_name = sc.name;
  plan.model_name = sc.model.name;
  plan.gpu_name = sc.profile.gpu.name;
  plan.rate = base.load.rate;
  plan.max_gpus = ctx.max_gpus;
  plan.slo = base.slo;
  plan.deployments.resize(n);
  const int wanted =
      ctx.options.threads > 0 ? ctx.options.threads : static_cast<int>(std::thread::hardware_concurrency());
  const int threads = std::max(1, std::min<int>(wanted, static_cast<int>(n)));
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  const auto work = [&](std::size_t worker) {
    try {
      const auto compute = make_cost_model(sc.profile, sc.facility.power.gpu_power_cap);
      for (std::size_t i = next++; i < n; i = next++) plan.deployments[i] = evaluate_one(*compute, i);
    } catch (...) {
      errors[worker] = std::current_exception();
      next = n;
    }
  };
  std::vector<std::thread> pool;
  for (int k = 1; k < threads; ++k) pool.emplace_back(work, static_cast<std::size_t>(k));
  work(0);
  for (auto& t : pool) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  std::stable_sort(plan.deployments.begin(), plan.deployments.end(), ranks_before);
  for (std::size_t i = 1; i < plan.deployments.size(); ++i) {
    plan.deployments[i].why_lost = why_lost(plan.deployments[i], plan.deployments[i - 1]);
  }
  for (const auto& c : plan.deployments) plan.probes += c.probes;
  if (plan.found()) plan.best_check = check_whole_service(sc, plan.deployments.front());
  plan.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return plan;
}

/// A disaggregated service: its pools' layouts, engine and formats stay the scenario's; the search is over the
/// prefill:decode ratio. Every prefill count the cluster holds beside one decode replica, each with the fewest
/// decode replicas that meet the SLO (evaluate_split).
ServingPlan plan_disaggregated(const SearchContext& ctx, std::chrono::steady_clock::time_point t0) {
  const Deployment& d = ctx.sc.serving->deployment;
  const int per_prefill = d.pool(PoolRole::prefill).gpus_per_replica();
  const int per_decode = d.pool(PoolRole::decode).gpus_per_replica();
  const int most_prefill = std::max(1, (ctx.max_gpus - per_decode) / per_prefill);
  return evaluate_all(ctx, static_cast<std::size_t>(most_prefill), [&](const ComputeCostModel& compute, std::size_t i) {
    return evaluate_split(ctx, compute, static_cast<int>(i) + 1);
  }, t0);
}

}  // namespace

Time plan_probe_duration(const ServingConfig& service, double rate) {
  return std::max(service.duration.value_or(kDefaultServingDuration), steady_probe_duration(rate));
}

std::string replica_count(const Deployment& d) {
  if (!d.disaggregated()) return std::to_string(d.replicas);
  return fmt::format("{}+{}", d.prefill.replicas, d.decode.replicas);
}

std::string describe_deployment(const Deployment& d, const EngineConfig& e) {
  std::string s = fmt::format("tp{} pp{} ep{} {}, max_seqs {}", d.tp, d.pp, d.ep, to_string(d.weights), e.max_seqs);
  if (d.disaggregated()) {
    const Deployment p = d.pool(PoolRole::prefill), q = d.pool(PoolRole::decode);
    s = fmt::format("prefill {} x tp{}, decode {} x tp{} (pp{} ep{} {}), max_seqs {}", p.replicas, p.tp, q.replicas,
                    q.tp, d.pp, d.ep, to_string(d.weights), e.max_seqs);
  }
  if (e.batching == Batching::chunked_prefill) return s + fmt::format(", token_budget {}", e.token_budget);
  return s + fmt::format(", max_batched_tokens {}", e.max_batched_tokens);
}

std::string ServingPlan::no_plan_reason() const {
  if (found()) return "";
  if (deployments.empty()) return "no deployment to try";
  const auto fitting = std::count_if(deployments.begin(), deployments.end(), [](const auto& c) { return c.fits; });
  if (fitting == 0) return fmt::format("no deployment's weights fit on at most {} GPUs", max_gpus);
  return fmt::format(
      "no deployment meets the SLO (TTFT {:.0f} ms, TPOT {:.0f} ms, {:.1f}% of requests) at {:.3g} "
      "requests/s on at most {} GPUs; the closest: {} ({:.1f}%)",
      slo.ttft.seconds() * 1e3, slo.tpot.seconds() * 1e3, 100 * slo.attainment, rate, max_gpus,
      deployments.front().description, 100 * deployments.front().slo_attainment);
}

std::string ServingPlan::close_call() const {
  if (!found()) return "";
  const ServingCandidate& b = deployments.front();
  const double t = slo.attainment;
  const double two_se = 2 * std::sqrt(t * (1 - t) / static_cast<double>(std::max<std::int64_t>(1, b.probe_requests)));
  if (b.slo_attainment - t >= two_se) return "";
  return fmt::format(
      "a close call: {:.2f}% of {} requests clears the {:.1f}% target by less than two standard "
      "errors ({:.2f}%); longer probes (--probe-seconds) may move the answer",
      100 * b.slo_attainment, b.probe_requests, 100 * t, 100 * two_se);
}

ServingPlan plan_serving(const Scenario& sc, const ServingPlanOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const ServingConfig& base = *sc.serving;
  if (base.load.arrivals != ArrivalKind::poisson) {
    throw InputError({sc.file, 0, 0}, "serving.load.arrivals",
                     "the plan search sizes a service for a steady rate: give Poisson arrivals at serving.load.rate");
  }
  SearchContext ctx{.sc = sc, .options = options, .max_gpus = base.deployment.gpus(), .book = {}, .inventory = {}};
  try {
    ctx.book = sc.pricebook.empty() ? PriceBook::load_default() : PriceBook::load(sc.pricebook);
    ctx.inventory = make_inventory(sc, *ctx.book);
  } catch (const InputError&) {
    ctx.inventory.reset();  // ranked by GPUs alone
  }

  if (base.deployment.disaggregated()) return plan_disaggregated(ctx, t0);

  std::vector<DType> weights{DType::bf16};
  if (sc.profile.gpu.peak.count(DType::fp8) > 0) weights.push_back(DType::fp8);
  std::vector<EngineConfig> engines;
  for (int seqs : with_own(options.max_seqs, base.engine.max_seqs)) {
    const bool chunked = base.engine.batching == Batching::chunked_prefill;
    const auto tokens = chunked ? with_own(options.token_budgets, base.engine.token_budget)
                                : with_own(options.max_batched_tokens, base.engine.max_batched_tokens);
    for (std::int64_t t : tokens) {
      EngineConfig e = base.engine;
      e.max_seqs = seqs;
      (chunked ? e.token_budget : e.max_batched_tokens) = t;
      engines.push_back(e);
    }
  }
  struct Shape {
    Deployment d;
    EngineConfig e;
  };
  std::vector<Shape> shapes;
  for (int tp : divisors(sc.topology.node().gpus)) {
    if (tp > ctx.max_gpus) continue;
    std::vector<int> eps{1};
    if (sc.model.is_moe()) {
      eps.clear();
      for (int ep : divisors(tp)) {
        if (sc.model.experts % ep == 0) eps.push_back(ep);
      }
    }
    for (int ep : eps) {
      for (DType w : weights) {
        for (const EngineConfig& e : engines) {
          Deployment d = base.deployment;
          d.tp = tp;
          d.pp = 1;
          d.ep = ep;
          d.weights = w;
          shapes.push_back({d, e});
        }
      }
    }
  }

  return evaluate_all(ctx, shapes.size(), [&](const ComputeCostModel& compute, std::size_t i) {
    return evaluate(ctx, compute, shapes[i].d, shapes[i].e);
  }, t0);
}

}  // namespace cs
