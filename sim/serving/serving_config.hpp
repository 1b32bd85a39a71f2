// What a serving simulation is asked: a deployment of a model on replicas of tp x pp GPUs, the engine that
// batches requests on each replica, the load that arrives, the latency target and how long to run. Value types,
// read from a scenario's `serving:` section by serving_params() (docs/serving.md lists every key).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/hardware/dtype.hpp"
#include "sim/input/param_table.hpp"
#include "sim/workload/framework_profile.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace cs {

/// How a replica batches requests into engine iterations.
///   static:          a batch is filled from the queue and run to completion (prefill, then decode until its
///                    longest output is done, finished sequences padding the batch); nothing joins it meanwhile.
///   continuous:      iteration-level scheduling (Orca, vLLM before chunked prefill): each iteration either
///                    prefills newly admitted prompts whole or decodes one token of every running sequence.
///   chunked_prefill: Sarathi-Serve: a token budget per iteration, filled by every running decode first, then by
///                    prompt chunks, so prefills never stall decodes for longer than one budget.
enum class Batching { static_batch, continuous, chunked_prefill };
/// What the engine does to a running request when the KV cache is full: drop its cache and prefill it again
/// later (recompute), or move its blocks to host memory and back (swap).
enum class Preemption { recompute, swap };
/// How arriving requests are spread over replicas.
enum class Routing { round_robin, least_loaded };
/// Where arrival times come from: a Poisson process, a Poisson process whose rate follows the hour of the day,
/// or a trace file.
enum class ArrivalKind { poisson, diurnal, trace };
/// How a prompt or output length is drawn.
enum class LengthKind { fixed, uniform, lognormal, trace };

/// One pool of a disaggregated deployment (DistServe, Splitwise): its replica count and their TP degree.
struct ReplicaPool {
  int replicas = 0;  ///< 0: the deployment is not disaggregated
  int tp = 0;        ///< 0: the deployment's tp
};
/// Which pool of a disaggregated deployment.
enum class PoolRole { prefill, decode };

struct Deployment {
  int tp = 1;        ///< tensor-parallel GPUs of one pipeline stage (within a node)
  int pp = 1;        ///< pipeline stages of one replica
  int ep = 1;        ///< expert-parallel degree inside the TP group (MoE; divides tp)
  int replicas = 1;  ///< independent copies of the model; kAutoReplicas until a scenario resolves `auto`
  /// `replicas: auto` before the scenario resolves it: cluster.gpus / (tp x pp).
  static constexpr int kAutoReplicas = 0;
  Routing routing = Routing::round_robin;
  DType weights = DType::bf16;   ///< weight precision: bf16 or fp8 (W8A8 GEMMs)
  DType kv_cache = DType::bf16;  ///< KV-cache precision: bf16 or fp8
  /// Disaggregated prefill and decode (docs/serving.md): requests are prefilled on the prefill pool's replicas
  /// and decoded on the decode pool's, their KV cache sent between them over the fabric. Both pools share pp,
  /// ep, weights, the KV-cache format and the engine; `replicas` does not apply.
  ReplicaPool prefill, decode;
  [[nodiscard]] bool disaggregated() const noexcept { return prefill.replicas > 0; }
  /// One pool as a deployment of its own (not disaggregated): its replicas at its tp.
  [[nodiscard]] Deployment pool(PoolRole role) const noexcept {
    const ReplicaPool& p = role == PoolRole::prefill ? prefill : decode;
    Deployment d = *this;
    d.prefill = d.decode = ReplicaPool{};
    d.replicas = p.replicas;
    if (p.tp > 0) d.tp = p.tp;
    return d;
  }
  [[nodiscard]] int gpus_per_replica() const noexcept { return tp * pp; }
  /// Every GPU the deployment uses: replicas x tp x pp, or both pools' when disaggregated.
  [[nodiscard]] int gpus() const noexcept {
    if (disaggregated()) return pool(PoolRole::prefill).gpus() + pool(PoolRole::decode).gpus();
    return gpus_per_replica() * replicas;
  }
};

struct EngineConfig {
  Batching batching = Batching::continuous;
  int max_seqs = 256;                       ///< sequences in one iteration at most (vLLM max_num_seqs)
  std::int64_t max_batched_tokens = 8192;   ///< prompt tokens in one iteration at most (static, continuous)
  std::int64_t token_budget = 512;          ///< tokens per iteration under chunked prefill (Sarathi-Serve's 512)
  int block_size = 16;                      ///< tokens per KV-cache block (vLLM's default)
  double memory_utilization = 0.9;          ///< share of GPU memory the engine may use (vLLM's default)
  std::optional<Bytes> activation_reserve;  ///< per GPU; absent: the largest iteration's activations
  std::optional<Bytes> kv_cache_memory;     ///< per GPU, overriding what memory_utilization leaves
  Preemption preemption = Preemption::recompute;
  Bandwidth swap_bandwidth{50e9};           ///< host <-> GPU for swapped blocks, per GPU
  double prefix_cache_hit_rate = 0.0;       ///< share of each prompt found in the prefix cache
  bool cuda_graphs = true;                  ///< decode-only iterations replay a CUDA graph
  /// Host time per kernel launched eagerly (and per graph launch): by default eager PyTorch's
  /// (profiles/frameworks/pytorch-eager.yaml).
  Time host_launch_cost = find_framework_profile("pytorch-eager").host_launch_cost;
  Time iteration_overhead = Time::zero();   ///< host time per iteration before its first launch (scheduler)
};

/// A length distribution in tokens. `min` and `max` clamp every draw (uniform draws between them).
struct LengthDist {
  LengthKind kind = LengthKind::fixed;
  std::int64_t value = 512;       ///< fixed
  std::int64_t min = 1;
  std::int64_t max = 1 << 20;
  double mean = 512;              ///< lognormal: the distribution's mean in tokens
  double sigma = 1.0;             ///< lognormal: the standard deviation of the length's logarithm
};

struct LoadConfig {
  ArrivalKind arrivals = ArrivalKind::poisson;
  double rate = 1.0;                ///< requests per second (poisson)
  std::vector<double> diurnal;      ///< requests per second in each hour of the day, 24 values (diurnal)
  std::string trace;                ///< CSV file (trace), resolved against the scenario's directory by the caller
  LengthDist prompt;
  LengthDist output{.value = 128, .mean = 128};
};

struct ServiceLevel {
  Time ttft = Time::ms(500);  ///< time to first token at most
  Time tpot = Time::ms(50);   ///< time per output token after the first at most
  /// Share of arriving requests that must finish within both targets for a deployment to meet the SLO (the
  /// plan search's criterion; rejected and unfinished requests miss).
  double attainment = 0.99;
};

inline constexpr Time kDefaultServingDuration = Time::ns(600'000'000'000);  // 10 minutes

struct ServingConfig {
  Deployment deployment;
  EngineConfig engine;
  LoadConfig load;
  ServiceLevel slo;
  /// Requests arrive during [0, duration); absent: a trace's whole span, else kDefaultServingDuration.
  std::optional<Time> duration;
  Time drain = Time::from_seconds(600);     ///< after the last arrival, how long in-flight requests may finish
  std::int64_t seed = 1;
  /// Not a file key: keep each iteration (replica, start, end, shape) for a timeline, at most this many (0: none).
  std::int64_t record_iterations = 0;
};

[[nodiscard]] const EnumTable<Batching>& batching_names();
[[nodiscard]] const EnumTable<Preemption>& preemption_names();
[[nodiscard]] const EnumTable<Routing>& routing_names();
[[nodiscard]] const EnumTable<ArrivalKind>& arrival_names();
[[nodiscard]] const EnumTable<LengthKind>& length_names();
/// Weight and KV-cache formats a replica may hold: bf16, fp8.
[[nodiscard]] const EnumTable<DType>& serving_dtype_names();

/// The `serving:` section: deployment, engine, load, slo, duration, drain, seed.
[[nodiscard]] const ParamTable<ServingConfig>& serving_params();
/// Reads a `serving:` section. Throws InputError located at the offending key.
[[nodiscard]] ServingConfig parse_serving_config(const InputNode& section);

}  // namespace cs
