// The serving plan search: the fewest replicas by bisection over one-replica probes, checked against the probes
// themselves; rates that need one replica and more; misfits excluded with their numbers; an SLO no deployment
// meets; a load that is not a steady rate.
#include "sim/search/serving_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "sim/collectives/network_options.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/replica_comm.hpp"
#include "sim/scenario/service_run.hpp"
#include "sim/serving/serving_runner.hpp"

namespace cs {
namespace {

/// Llama 3 70B on one DGX H100 (8 GPUs), every request 512 prompt and 64 output tokens.
std::string service(double rate, int gpus = 8, const std::string& slo = "{ttft: 500ms, tpot: 50ms}") {
  return "format_version: 1\nname: plan test\nmodel: {preset: llama3-70b}\n"
         "cluster: {gpus: " +
         std::to_string(gpus) +
         ", topology: dgx-h100, profile: h100-sxm}\n"
         "serving:\n"
         "  deployment: {tp: " +
         std::to_string(std::min(gpus, 4)) +
         ", replicas: auto}\n"
         "  engine: {batching: continuous, max_seqs: 256, max_batched_tokens: 8192}\n"
         "  load:\n"
         "    arrivals: poisson\n"
         "    rate: " +
         std::to_string(rate) +
         "\n"
         "    prompt: {dist: fixed, value: 512}\n"
         "    output: {dist: fixed, value: 64}\n"
         "  slo: " +
         slo + "\n";
}

/// Only the scenario's own engine limits: tp 1, 2, 4, 8 x bf16, fp8 = 8 deployments.
ServingPlanOptions own_engine() {
  ServingPlanOptions o;
  o.max_seqs.clear();
  o.max_batched_tokens.clear();
  o.threads = 1;
  return o;
}

ServingPlan plan(const std::string& text) { return plan_serving(load_scenario_text(text, "plan.yaml"), own_engine()); }

const ServingCandidate& find(const ServingPlan& p, int tp, DType weights) {
  const auto it = std::find_if(p.deployments.begin(), p.deployments.end(), [&](const ServingCandidate& c) {
    return c.deployment.tp == tp && c.deployment.weights == weights;
  });
  if (it == p.deployments.end()) {
    ADD_FAILURE() << "no tp" << tp << " " << to_string(weights) << " deployment";
    return p.deployments.front();
  }
  return *it;
}

/// One replica of `c` at rate / replicas, as the search probes it.
double probe_attainment(const Scenario& sc, const ServingCandidate& c, int replicas) {
  const auto compute = make_cost_model(sc.profile, sc.facility.power.gpu_power_cap);
  const TopologyComm comm(sc.topology, c.deployment.tp, collective_calibration(sc.network));
  ServingConfig config = *sc.serving;
  config.deployment = c.deployment;
  config.engine = c.engine;
  const double r = sc.serving->load.rate / replicas;
  config = one_replica_at(config, r, plan_probe_duration(*sc.serving, r));
  return slo_attainment(run_serving(config, sc.model, *compute, comm, sc.profile.gpu.memory).result);
}

TEST(ServingProbe, OneReplicaAtARateAndItsShareWithinTheSlo) {
  // About 1,500 arrivals, between a minute and an hour: 1500 / 2 = 750 s; 1500 / 100 = 15 s -> 60 s;
  // 1500 / 0.1 = 15,000 s -> 3,600 s.
  EXPECT_DOUBLE_EQ(steady_probe_duration(2).seconds(), 750);
  EXPECT_DOUBLE_EQ(steady_probe_duration(100).seconds(), 60);
  EXPECT_DOUBLE_EQ(steady_probe_duration(0.1).seconds(), 3600);
  ServingConfig c;
  c.deployment.replicas = 8;
  c.load.arrivals = ArrivalKind::diurnal;
  const ServingConfig one = one_replica_at(c, 2.5, Time::from_seconds(600));
  EXPECT_EQ(one.deployment.replicas, 1);
  EXPECT_EQ(one.load.arrivals, ArrivalKind::poisson);
  EXPECT_DOUBLE_EQ(one.load.rate, 2.5);
  EXPECT_DOUBLE_EQ(one.duration->seconds(), 600);
  ServingResult r;
  r.arrived = 200;
  r.finished = 190;  // 10 unfinished or rejected: they miss
  r.slo_met = 180;
  EXPECT_DOUBLE_EQ(slo_attainment(r), 0.9);  // 180 / 200, not 180 / 190
  EXPECT_DOUBLE_EQ(slo_attainment(ServingResult{}), 0.0);
  // The plan search's probe: the service's window (default 10 minutes) unless 1,500 requests take longer.
  EXPECT_DOUBLE_EQ(plan_probe_duration(c, 10).seconds(), 600);    // 1500 / 10 = 150 s < 600 s
  EXPECT_DOUBLE_EQ(plan_probe_duration(c, 0.5).seconds(), 3000);  // 1500 / 0.5
  c.duration = Time::from_seconds(7200);
  EXPECT_DOUBLE_EQ(plan_probe_duration(c, 0.5).seconds(), 7200);
}

TEST(ServingPlan, OneReplicaSufficesAtALowRateAndItIsTheCheapest) {
  const ServingPlan p = plan(service(0.5));
  ASSERT_TRUE(p.found()) << p.no_plan_reason();
  EXPECT_EQ(p.deployments.size(), 8u);  // tp 1, 2, 4, 8 x bf16, fp8
  const ServingCandidate& best = p.deployments.front();
  // Half a request per second of 576 tokens: one GPU holds Llama 3 70B in fp8 (65.7 GiB) and serves it.
  EXPECT_EQ(best.deployment.tp, 1);
  EXPECT_EQ(best.deployment.pp, 1);
  EXPECT_EQ(best.deployment.weights, DType::fp8);
  EXPECT_EQ(best.deployment.replicas, 1);
  EXPECT_EQ(best.gpus, 1);
  EXPECT_GE(best.slo_attainment, 0.99);
  EXPECT_LE(best.ttft_p99_s, 0.5);
  EXPECT_LE(best.tpot_p99_s, 0.05);
  // Priced per GPU-hour of the owned cluster: cost = GPUs x that rate; per million tokens = cost / tokens an
  // hour, about 0.5 x 576 = 288 tokens/s (Poisson draws and the makespan's tail move it a few per cent).
  EXPECT_GT(best.usd_per_gpu_hour, 1.0);
  EXPECT_DOUBLE_EQ(best.cost_usd_per_hour, best.gpus * best.usd_per_gpu_hour);
  EXPECT_NEAR(best.tokens_per_s, 288, 0.1 * 288);
  EXPECT_NEAR(best.usd_per_million_tokens, best.cost_usd_per_hour / (best.tokens_per_s * 3600) * 1e6, 1e-9);
  // bf16 on one GPU (131 GiB) takes two pipeline stages: the shallowest pipeline that fits.
  EXPECT_EQ(find(p, 1, DType::bf16).deployment.pp, 2);
  // A check of the probes: the best run whole, at the scenario's default 10 minutes (about 300 requests).
  ASSERT_TRUE(p.best_check);
  EXPECT_GE(p.best_check->slo_attainment, 0.99);
  EXPECT_DOUBLE_EQ(p.best_check->duration_s, 600);
  // The ranking: every deployment after the first says why it lost; those meeting the SLO come first, by cost.
  for (std::size_t i = 1; i < p.deployments.size(); ++i) {
    EXPECT_FALSE(p.deployments[i].why_lost.empty()) << i;
    if (p.deployments[i].meets_slo) {
      EXPECT_GE(p.deployments[i].cost_usd_per_hour + 0.01, p.deployments[i - 1].cost_usd_per_hour) << i;
    }
  }
}

TEST(ServingPlan, TheFewestReplicasAreTheFewestThatMeetTheSlo) {
  const std::string text = service(16);
  const Scenario sc = load_scenario_text(text, "plan.yaml");
  const ServingPlan p = plan_serving(sc, own_engine());
  ASSERT_TRUE(p.found()) << p.no_plan_reason();
  int checked = 0;
  for (const ServingCandidate& c : p.deployments) {
    if (!c.meets_slo || c.deployment.replicas == 1) continue;
    ++checked;
    const int r = c.deployment.replicas;
    // At r replicas one replica's share of the load meets the target; at r - 1 it does not.
    EXPECT_GE(probe_attainment(sc, c, r), 0.99) << c.description;
    EXPECT_LT(probe_attainment(sc, c, r - 1), 0.99) << c.description;
  }
  EXPECT_GT(checked, 0);  // 16 requests/s needs more than one replica of some deployments
}

TEST(ServingPlan, ADisaggregatedServiceGetsTheFewestDecodeReplicasForEachPrefillCount) {
  // Llama 3 8B on one DGX H100, TP1 pools: every prefill count 1..7 beside at least one decode replica, each at
  // the fewest decode replicas whose whole-service run meets 99% (one fewer misses), the cheapest first. The
  // 512-token outputs at a 15 ms TPOT make one decode replica too few, so the check below has splits to check.
  const std::string text =
      "format_version: 1\nname: split test\nmodel: {preset: llama3-8b}\n"
      "cluster: {gpus: 8, topology: dgx-h100, profile: h100-sxm}\n"
      "serving:\n"
      "  deployment: {tp: 1, prefill: {replicas: 4}, decode: {replicas: 4}}\n"
      "  load: {arrivals: poisson, rate: 40, prompt: {dist: fixed, value: 512}, output: {dist: fixed, value: 512}}\n"
      "  slo: {ttft: 300ms, tpot: 15ms}\n"
      "  duration: 60s\n";
  const Scenario sc = load_scenario_text(text, "split.yaml");
  ServingPlanOptions o;
  o.threads = 2;
  const ServingPlan p = plan_serving(sc, o);
  ASSERT_EQ(p.deployments.size(), 7u);
  ASSERT_TRUE(p.found()) << p.no_plan_reason();
  const auto compute = make_cost_model(sc.profile, sc.facility.power.gpu_power_cap);
  const auto attainment = [&](const Deployment& d) {
    ServingConfig c = *sc.serving;
    c.deployment = d;
    return slo_attainment(simulate_service(sc, c, *compute).result);
  };
  int checked = 0;
  for (const ServingCandidate& c : p.deployments) {
    ASSERT_TRUE(c.deployment.disaggregated());
    EXPECT_EQ(c.gpus, c.deployment.prefill.replicas + c.deployment.decode.replicas);
    if (c.meets_slo) {
      EXPECT_GE(c.cost_usd_per_hour, p.deployments.front().cost_usd_per_hour - 0.01);
    }
    if (!c.meets_slo || c.deployment.decode.replicas == 1) continue;
    ++checked;
    Deployment fewer = c.deployment;
    --fewer.decode.replicas;
    EXPECT_GE(attainment(c.deployment), 0.99) << c.description;
    EXPECT_LT(attainment(fewer), 0.99) << c.description;
  }
  EXPECT_GT(checked, 0) << p.deployments.front().description << " " << p.deployments.front().slo_attainment;
}

TEST(ServingPlan, DoublingTheRateDoublesTheReplicasWithTheSameLatencies) {
  // tp2 fp8 meets 8 requests/s with one replica and not 16; at 16 two replicas each take 8 requests/s, the very
  // probe that one replica ran at 8 (same seed): the same latencies and attainment, twice the GPUs.
  const ServingPlan at8 = plan(service(8));
  const ServingPlan at16 = plan(service(16));
  const ServingCandidate& one = find(at8, 2, DType::fp8);
  const ServingCandidate& two = find(at16, 2, DType::fp8);
  ASSERT_TRUE(one.meets_slo && two.meets_slo);
  EXPECT_EQ(one.deployment.replicas, 1);
  EXPECT_EQ(two.deployment.replicas, 2);
  EXPECT_EQ(two.gpus, 2 * one.gpus);
  EXPECT_DOUBLE_EQ(two.ttft_p99_s, one.ttft_p99_s);
  EXPECT_DOUBLE_EQ(two.tpot_p99_s, one.tpot_p99_s);
  EXPECT_DOUBLE_EQ(two.slo_attainment, one.slo_attainment);
}

TEST(ServingPlan, AHigherRateNeedsAtLeastAsManyGpus) {
  int last_best = 0;
  std::map<std::string, int> last_replicas;
  for (const double rate : {0.5, 2.0, 8.0, 16.0}) {
    const ServingPlan p = plan(service(rate));
    ASSERT_TRUE(p.found()) << rate << ": " << p.no_plan_reason();
    EXPECT_GE(p.deployments.front().gpus, last_best) << rate;
    last_best = p.deployments.front().gpus;
    for (const ServingCandidate& c : p.deployments) {
      if (!c.meets_slo) continue;
      EXPECT_GE(c.deployment.replicas, last_replicas[c.description]) << rate << " " << c.description;
      last_replicas[c.description] = c.deployment.replicas;
    }
  }
  EXPECT_GT(last_best, 1);  // 16 requests/s is more than one GPU serves
}

TEST(ServingPlan, WeightsThatDoNotFitAreExcludedWithTheNumbers) {
  // One GPU: Llama 3 70B in bf16 is 131.4 GiB of weights against 71.26 GiB usable (90% of 79.18 GiB); fp8 fits.
  const ServingPlan p = plan(service(0.2, 1));
  ASSERT_EQ(p.deployments.size(), 2u);  // tp 1 x bf16, fp8
  const ServingCandidate& bf16 = p.deployments.back();
  EXPECT_EQ(bf16.deployment.weights, DType::bf16);
  EXPECT_FALSE(bf16.fits);
  EXPECT_FALSE(bf16.meets_slo);
  EXPECT_NE(bf16.reason.find("the weights do not fit: 131.4 GiB of weights"), std::string::npos) << bf16.reason;
  EXPECT_NE(bf16.reason.find("71.26 GiB usable"), std::string::npos) << bf16.reason;
  EXPECT_EQ(bf16.why_lost, bf16.reason);
  EXPECT_EQ(bf16.probes, 0);  // never simulated
  ASSERT_TRUE(p.found()) << p.no_plan_reason();
  EXPECT_EQ(p.deployments.front().deployment.weights, DType::fp8);
  EXPECT_EQ(p.deployments.front().gpus, 1);
}

TEST(ServingPlan, AnSloNoDeploymentMeetsIsReportedWithTheClosest) {
  const ServingPlan p = plan(service(2, 8, "{ttft: 1ms, tpot: 50ms}"));  // no prefill of 512 tokens takes 1 ms
  EXPECT_FALSE(p.found());
  EXPECT_NE(p.no_plan_reason().find("no deployment meets the SLO (TTFT 1 ms"), std::string::npos) << p.no_plan_reason();
  for (const ServingCandidate& c : p.deployments) {
    EXPECT_FALSE(c.meets_slo);
    EXPECT_DOUBLE_EQ(c.slo_attainment, 0.0);
    // Tried at the most replicas the 8 GPUs hold.
    EXPECT_EQ(c.deployment.replicas, 8 / c.deployment.gpus_per_replica()) << c.description;
    EXPECT_EQ(c.probes, 1);
  }
  EXPECT_FALSE(p.best_check);
}

TEST(ServingPlan, TheRankingDoesNotDependOnTheThreads) {
  const Scenario sc = load_scenario_text(service(8), "plan.yaml");
  ServingPlanOptions two = own_engine();
  two.threads = 2;
  const ServingPlan a = plan_serving(sc, own_engine());
  const ServingPlan b = plan_serving(sc, two);
  ASSERT_EQ(a.deployments.size(), b.deployments.size());
  for (std::size_t i = 0; i < a.deployments.size(); ++i) {
    EXPECT_EQ(a.deployments[i].description, b.deployments[i].description) << i;
    EXPECT_EQ(a.deployments[i].deployment.replicas, b.deployments[i].deployment.replicas) << i;
    EXPECT_EQ(a.deployments[i].slo_attainment, b.deployments[i].slo_attainment) << i;
    EXPECT_EQ(a.deployments[i].cost_usd_per_hour, b.deployments[i].cost_usd_per_hour) << i;
    EXPECT_EQ(a.deployments[i].why_lost, b.deployments[i].why_lost) << i;
  }
  EXPECT_EQ(a.probes, b.probes);
}

TEST(ServingPlan, ABestWithinTwoStandardErrorsOfTheTargetIsACloseCall) {
  ServingPlan p;
  p.slo.attainment = 0.99;
  ServingCandidate best;
  best.meets_slo = true;
  best.slo_attainment = 0.992;
  best.probe_requests = 3000;
  p.deployments.push_back(best);
  // 2 sqrt(0.99 x 0.01 / 3000) = 0.363%: 99.2% clears 99% by 0.2%, less than that.
  EXPECT_EQ(p.close_call(),
            "a close call: 99.20% of 3000 requests clears the 99.0% target by less than two "
            "standard errors (0.36%); longer probes (--probe-seconds) may move the answer");
  p.deployments[0].probe_requests = 100000;  // 2 sqrt(0.99 x 0.01 / 100000) = 0.063% < 0.2%
  EXPECT_EQ(p.close_call(), "");
  p.deployments[0].probe_requests = 3000;
  p.deployments[0].slo_attainment = 0.999;  // 0.9% above the target
  EXPECT_EQ(p.close_call(), "");
  p.deployments[0].meets_slo = false;
  EXPECT_EQ(p.close_call(), "");
}

TEST(ServingPlan, ALoadThatIsNotASteadyRateIsRefused) {
  std::string text = service(1);
  text.replace(text.find("arrivals: poisson\n    rate: 1.000000"), 36,
               "arrivals: diurnal\n    diurnal: [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]");
  try {
    (void)plan(text);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "serving.load.arrivals");
    EXPECT_NE(std::string(e.what()).find("Poisson"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cs
