// The serving plan search (`clustersim plan` on a scenario with `serving:`): the cheapest deployment of the
// service's model that meets its SLO at its request rate on at most its cluster's GPUs.
//
// Candidates: TP over the divisors of a node's GPUs, EP over the divisors of TP that divide the experts (MoE),
// weights in bf16 and in fp8 where the profile prices fp8, and a small grid of engine limits (max_seqs, and
// max_batched_tokens or the chunked-prefill token budget). PP is tried only where the shallower pipeline's
// weights do not fit: the serving layer runs one batch at a time through the stages, so pp adds memory, never
// throughput. For each candidate, the fewest replicas that meet the SLO are found by bisection, each probe one
// replica simulated at rate / replicas (sim/serving/serving_runner.hpp: replicas serve independently), so a probe
// costs about the same whatever the replica count. A deployment that meets the SLO at r replicas is assumed to
// meet it at every count above r (a lighter load per replica never queues longer).
//
// A disaggregated service (serving.deployment.prefill and decode) keeps its pools' layouts, engine and formats and
// searches the prefill:decode ratio: for every prefill replica count P the cluster holds beside one decode
// replica, the fewest decode replicas D that meet the SLO, by bisection over whole-service runs at the rate (the
// pools feed each other, so a one-replica probe does not stand for them). Attainment is assumed not to fall as D
// grows; the answer is the cheapest (P, D).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/serving/serving_config.hpp"

namespace cs {

struct ServingPlanOptions {
  /// Engine limits tried; the scenario's own values are added where absent.
  std::vector<int> max_seqs{64, 256};
  std::vector<std::int64_t> max_batched_tokens{4096, 8192};  ///< static and continuous batching
  std::vector<std::int64_t> token_budgets{256, 512};         ///< chunked prefill
  /// How long each probe's requests arrive; absent: the scenario's serving.duration, or steady_probe_duration
  /// (about 1,500 requests, at most an hour) where that is longer.
  std::optional<Time> probe_duration;
  int threads = 0;  ///< candidates probed at once (0: all cores)
};

/// One deployment of the ranking, at the fewest replicas that meet the SLO (or, when none within the cluster
/// does, at the most replicas that fit the cluster).
struct ServingCandidate {
  Deployment deployment;  ///< replicas: as above
  EngineConfig engine;
  std::string description;  ///< "tp4 pp1 ep1 bf16, max_seqs 256, max_batched_tokens 8192"
  bool fits = true;         ///< the weights, activations and one KV block fit a GPU
  bool meets_slo = false;
  std::string reason;  ///< why it does not fit, or why it misses the SLO; empty when it meets it
  int gpus = 0;        ///< replicas x tp x pp
  double ttft_p99_s = 0, tpot_p99_s = 0;
  double slo_attainment = 0;        ///< requests within both targets over requests arrived, in one replica's probe
  std::int64_t probe_requests = 0;  ///< requests that arrived in that probe
  double tokens_per_s = 0;          ///< prompt and output tokens served by all replicas
  double usd_per_gpu_hour = 0;      ///< owned cluster, at this deployment's mix of prefill, decode and idle
  double cost_usd_per_hour = 0;     ///< gpus x usd_per_gpu_hour
  double usd_per_million_tokens = 0;
  int probes = 0;        ///< replica counts simulated
  std::string why_lost;  ///< why it ranks below the deployment above it; empty for the first
};

/// The best deployment run as a whole service: every replica behind the scenario's routing, for the scenario's
/// duration and seed, as `clustersim run` would (a check on the one-replica probes).
struct ServiceCheck {
  double slo_attainment = 0;
  double ttft_p99_s = 0, tpot_p99_s = 0;
  std::int64_t requests = 0;  ///< arrived
  double duration_s = 0;      ///< arrival window
};

struct ServingPlan {
  std::vector<ServingCandidate> deployments;  ///< those that meet the SLO by cost, then those that miss, then misfits
  std::optional<ServiceCheck> best_check;     ///< the best deployment run whole (found() only)
  double rate = 0;                            ///< requests per second over the whole service
  int max_gpus = 0;                           ///< the cluster's GPUs (the scenario's deployment's)
  ServiceLevel slo;
  std::string scenario_name, model_name, gpu_name;  ///< what was searched
  int probes = 0;      ///< replica probes simulated in all
  double seconds = 0;  ///< wall time of the search
  [[nodiscard]] bool found() const { return !deployments.empty() && deployments.front().meets_slo; }
  /// When the best clears the target by less than two binomial standard errors of its probe's attainment
  /// (2 sqrt(t (1 - t) / n) for target t over n requests), a sentence saying so; empty otherwise.
  [[nodiscard]] std::string close_call() const;
  /// Why no deployment meets the SLO within the cluster; empty when one does.
  [[nodiscard]] std::string no_plan_reason() const;
};

/// Searches `sc` (sc.serving must be set; Poisson arrivals). Throws InputError for another kind of load.
[[nodiscard]] ServingPlan plan_serving(const Scenario& sc, const ServingPlanOptions& options = {});

/// How long a probe of one replica at `rate` requests/s runs by default: the service's own arrival window, or
/// longer where one replica's share of it holds fewer than about 1,500 requests (steady_probe_duration), since a
/// 99% target judged on a few hundred requests moves with every few of them.
[[nodiscard]] Time plan_probe_duration(const ServingConfig& service, double rate);

/// "tp4 pp1 ep1 bf16, max_seqs 256, max_batched_tokens 8192"; disaggregated: "prefill 1 x tp4, decode 3 x tp4
/// (pp1 ep1 bf16), max_seqs 256, max_batched_tokens 8192".
[[nodiscard]] std::string describe_deployment(const Deployment& d, const EngineConfig& e);
/// The replicas of a deployment as the ranking shows them: "8", or "1+3" (prefill + decode).
[[nodiscard]] std::string replica_count(const Deployment& d);

}  // namespace cs
