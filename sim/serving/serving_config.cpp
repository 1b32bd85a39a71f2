#include "sim/serving/serving_config.hpp"

#include <cmath>

namespace cs {

static_assert(Deployment::kAutoReplicas == 0, "replicas: auto is read as 0 (param_detail::read_count_or_auto)");

const EnumTable<Batching>& batching_names() {
  static const EnumTable<Batching> t{{Batching::static_batch, "static"},
                                     {Batching::continuous, "continuous"},
                                     {Batching::chunked_prefill, "chunked-prefill"}};
  return t;
}
const EnumTable<Preemption>& preemption_names() {
  static const EnumTable<Preemption> t{{Preemption::recompute, "recompute"}, {Preemption::swap, "swap"}};
  return t;
}
const EnumTable<Routing>& routing_names() {
  static const EnumTable<Routing> t{{Routing::round_robin, "round-robin"}, {Routing::least_loaded, "least-loaded"}};
  return t;
}
const EnumTable<ArrivalKind>& arrival_names() {
  static const EnumTable<ArrivalKind> t{
      {ArrivalKind::poisson, "poisson"}, {ArrivalKind::diurnal, "diurnal"}, {ArrivalKind::trace, "trace"}};
  return t;
}
const EnumTable<LengthKind>& length_names() {
  static const EnumTable<LengthKind> t{{LengthKind::fixed, "fixed"},
                                       {LengthKind::uniform, "uniform"},
                                       {LengthKind::lognormal, "lognormal"},
                                       {LengthKind::trace, "trace"}};
  return t;
}
const EnumTable<DType>& serving_dtype_names() {
  static const EnumTable<DType> t{{DType::bf16, "bf16"}, {DType::fp8, "fp8"}};
  return t;
}

namespace {

ParamTable<ReplicaPool> pool_params(const std::string& key, const std::string& help) {
  ParamTable<ReplicaPool> p(key, help);
  p.field("replicas", &ReplicaPool::replicas,
          {.help = key + " replicas of a disaggregated deployment", .positive = true, .required = true});
  p.field("tp", &ReplicaPool::tp,
          {.help = "tensor-parallel degree of the " + key + " replicas (within a node)", .positive = true,
           .default_text = "deployment.tp"});
  return p;
}

const ParamTable<Deployment>& deployment_params() {
  static const ParamTable<Deployment> t = [] {
    ParamTable<Deployment> p("deployment", "How the model is laid out: replicas of tp x pp GPUs.");
    p.field("tp", &Deployment::tp, {.help = "tensor-parallel degree of one stage (within a node)", .positive = true});
    p.field("pp", &Deployment::pp, {.help = "pipeline stages per replica (one batch in flight)", .positive = true});
    p.field("ep", &Deployment::ep,
            {.help = "expert parallelism inside the TP group (MoE): each GPU holds experts / ep whole experts "
                     "split tp / ep ways; must divide tp",
             .positive = true});
    p.custom(count_or_auto_spec("replicas",
                                "independent copies of the model. auto: cluster.gpus / (tp x pp), so a what-if on "
                                "the GPU count keeps the replica's layout",
                                "1"),
             [](const InputNode& n, Deployment& d) { d.replicas = param_detail::read_count_or_auto(n); });
    p.choice("routing", &Deployment::routing, routing_names(),
             {.help = "how arrivals are spread: round-robin, or to the replica with the fewest requests waiting "
                      "and running"});
    p.choice("weights", &Deployment::weights, serving_dtype_names(),
             {.help = "weight precision; fp8 runs the GEMMs in fp8 (W8A8)"});
    p.choice("kv_cache", &Deployment::kv_cache, serving_dtype_names(), {.help = "KV-cache precision"});
    p.section(&Deployment::prefill,
              pool_params("prefill", "Disaggregated serving (DistServe, Splitwise): the pool that prefills every "
                                     "prompt and sends its KV cache to the decode pool. Give it with decode."));
    p.section(&Deployment::decode,
              pool_params("decode", "Disaggregated serving: the pool that receives each request's KV cache "
                                    "over the fabric and decodes it. Give it with prefill."));
    p.check([](const InputNode& n, Deployment& d) {
      if (d.tp % d.ep != 0) (n.has("ep") ? n.at("ep") : n).fail("ep must divide tp (" + std::to_string(d.tp) + ")");
      if (n.has("prefill") != n.has("decode")) {
        n.at(n.has("prefill") ? "prefill" : "decode")
            .fail(std::string("a disaggregated deployment needs both pools: give ") +
                  (n.has("prefill") ? "decode" : "prefill") + " too");
      }
      if (!n.has("prefill")) return;
      if (n.has("replicas")) {
        n.at("replicas").fail("does not apply to a disaggregated deployment (prefill.replicas and decode.replicas "
                              "count its replicas)");
      }
      for (const char* key : {"prefill", "decode"}) {
        const int tp = d.pool(std::string(key) == "prefill" ? PoolRole::prefill : PoolRole::decode).tp;
        if (tp % d.ep != 0) {
          n.at(key).fail("ep " + std::to_string(d.ep) + " must divide this pool's tp (" + std::to_string(tp) + ")");
        }
      }
    });
    return p;
  }();
  return t;
}

const ParamTable<EngineConfig>& engine_params() {
  static const ParamTable<EngineConfig> t = [] {
    ParamTable<EngineConfig> p("engine", "How each replica batches requests, and its KV cache.");
    p.choice("batching", &EngineConfig::batching, batching_names(),
             {.help = "static (fill a batch, run it to completion), continuous (iteration-level: whole prompts or "
                      "one decode step of every sequence per iteration; vLLM before chunked prefill) or "
                      "chunked-prefill (Sarathi-Serve: a token budget per iteration, decodes first, then prompt "
                      "chunks)"});
    p.field("max_seqs", &EngineConfig::max_seqs,
            {.help = "sequences running on a replica at most (vLLM max_num_seqs)", .positive = true});
    p.field("max_batched_tokens", &EngineConfig::max_batched_tokens,
            {.help = "prompt tokens prefilled in one iteration at most (static, continuous; vLLM "
                     "max_num_batched_tokens); a longer prompt is rejected",
             .positive = true});
    p.field("token_budget", &EngineConfig::token_budget,
            {.help = "tokens (decodes plus prompt chunks) per iteration under chunked-prefill (Sarathi-Serve's "
                     "default 512)",
             .positive = true});
    p.field("block_size", &EngineConfig::block_size,
            {.help = "tokens per paged KV-cache block (vLLM's default 16)", .positive = true});
    p.field("memory_utilization", &EngineConfig::memory_utilization,
            {.help = "share of each GPU's memory the engine may use for weights, activations and the KV cache "
                     "(vLLM gpu_memory_utilization)",
             .max = 1.0, .positive = true});
    p.field("activation_reserve", &EngineConfig::activation_reserve,
            {.help = "memory per GPU kept for the activations and workspace of an iteration",
             .min = 0.0, .default_text = "the largest iteration's activations"});
    p.field("kv_cache_memory", &EngineConfig::kv_cache_memory,
            {.help = "KV-cache memory per GPU, instead of what memory_utilization leaves after weights and "
                     "activations",
             .positive = true, .default_text = "what is left"});
    p.choice("preemption", &EngineConfig::preemption, preemption_names(),
             {.help = "when the cache is full, the newest running request is dropped and prefilled again later "
                      "(recompute) or its blocks are copied to host memory and back (swap)"});
    p.field("swap_bandwidth", &EngineConfig::swap_bandwidth,
            {.help = "host <-> GPU copy rate of swapped blocks, per GPU (assumption: PCIe Gen5 x16 is 64 GB/s per "
                     "direction; pinned copies reach about 50)",
             .positive = true});
    p.field("prefix_cache_hit_rate", &EngineConfig::prefix_cache_hit_rate,
            {.help = "share of every prompt already in the prefix cache (whole blocks, at least one token "
                     "computed): skipped by its prefill",
             .min = 0.0, .max = 1.0});
    p.field("cuda_graphs", &EngineConfig::cuda_graphs,
            {.help = "decode-only iterations replay a captured CUDA graph (one launch); iterations with a prefill "
                     "launch every kernel eagerly"});
    p.field("host_launch_cost", &EngineConfig::host_launch_cost,
            {.help = "host time per kernel launched eagerly, and per graph launch (default: eager PyTorch's, "
                     "profiles/frameworks/pytorch-eager.yaml: 32us per kernel measured on the H200 host in training, "
                     "autograd on)",
             .min = 0.0});
    p.field("iteration_overhead", &EngineConfig::iteration_overhead,
            {.help = "host time per iteration before its first launch (scheduling, input preparation); not "
                     "measured, 0 by default",
             .min = 0.0});
    p.check([](const InputNode& n, EngineConfig& e) {
      if (n.has("token_budget") && e.batching != Batching::chunked_prefill) {
        n.at("token_budget").fail("applies to batching: chunked-prefill only (max_batched_tokens limits the others)");
      }
      if (n.has("max_batched_tokens") && e.batching == Batching::chunked_prefill) {
        n.at("max_batched_tokens").fail("does not apply to chunked-prefill (its token_budget limits each iteration)");
      }
      if (n.has("activation_reserve") && n.has("kv_cache_memory")) {
        n.at("kv_cache_memory").fail("give kv_cache_memory or activation_reserve, not both");
      }
    });
    return p;
  }();
  return t;
}

/// `defaults`: the section's own defaults where they differ from LengthDist's (the shown defaults say so).
ParamTable<LengthDist> length_params(const std::string& key, const std::string& help, const LengthDist& defaults) {
  ParamTable<LengthDist> p(key, help);
  p.choice("dist", &LengthDist::kind, length_names(),
           {.help = "fixed, uniform (between min and max), lognormal (mean, sigma) or trace (the trace file's "
                    "column; arrivals: trace)"});
  p.field("value", &LengthDist::value,
          {.help = "tokens (fixed)", .positive = true, .default_text = std::to_string(defaults.value)});
  p.field("min", &LengthDist::min, {.help = "fewest tokens of a draw (uniform, lognormal)", .positive = true});
  p.field("max", &LengthDist::max, {.help = "most tokens of a draw (uniform, lognormal)", .positive = true});
  p.field("mean", &LengthDist::mean,
          {.help = "mean in tokens (lognormal)", .positive = true, .default_text = param_detail::to_text(defaults.mean)});
  p.field("sigma", &LengthDist::sigma,
          {.help = "standard deviation of the length's natural logarithm (lognormal)", .min = 0.0, .max = 5.0});
  p.check([](const InputNode& n, LengthDist& d) {
    if (d.min > d.max) n.at(n.has("min") ? "min" : "max").fail("min exceeds max");
    const auto only = [&](const char* name, bool applies, const char* kinds) {
      if (n.has(name) && !applies) n.at(name).fail(std::string("applies to dist: ") + kinds + " only");
    };
    only("value", d.kind == LengthKind::fixed, "fixed");
    only("mean", d.kind == LengthKind::lognormal, "lognormal");
    only("sigma", d.kind == LengthKind::lognormal, "lognormal");
    only("min", d.kind == LengthKind::uniform || d.kind == LengthKind::lognormal, "uniform or lognormal");
    only("max", d.kind == LengthKind::uniform || d.kind == LengthKind::lognormal, "uniform or lognormal");
  });
  return p;
}

std::vector<double> read_diurnal(const InputNode& n) {
  const auto elements = n.elements();
  n.require(elements.size() == 24, "needs 24 rates (requests/s in each hour of the day), got " +
                                       std::to_string(elements.size()));
  std::vector<double> rates;
  for (const auto& e : elements) rates.push_back(param_detail::read_checked<double>(e, {.min = 0.0}));
  return rates;
}

const ParamTable<LoadConfig>& load_params() {
  static const ParamTable<LoadConfig> t = [] {
    ParamTable<LoadConfig> p("load", "When requests arrive and how long their prompts and outputs are.");
    p.choice("arrivals", &LoadConfig::arrivals, arrival_names(),
             {.help = "poisson (at rate), diurnal (a Poisson process at the hour's rate) or trace (a CSV file)"});
    p.field("rate", &LoadConfig::rate, {.help = "requests per second (poisson)", .positive = true});
    ParamSpec diurnal{.key = "diurnal", .type = ParamType::list,
                      .help = "requests per second in each hour of the day from midnight, 24 values (diurnal; the "
                              "run starts at midnight)",
                      .default_text = "none"};
    diurnal.check = [](const InputNode& n) { (void)read_diurnal(n); };
    p.custom(std::move(diurnal), [](const InputNode& n, LoadConfig& l) { l.diurnal = read_diurnal(n); });
    p.field("trace", &LoadConfig::trace,
            {.help = "CSV of requests (trace): arrival_s, prompt_tokens, output_tokens, or the Azure LLM inference "
                     "trace's TIMESTAMP, ContextTokens, GeneratedTokens",
             .default_text = "none"});
    p.section(&LoadConfig::prompt, length_params("prompt", "Prompt lengths in tokens.", LoadConfig{}.prompt));
    p.section(&LoadConfig::output, length_params("output", "Output lengths in tokens (the first token included).",
                                                 LoadConfig{}.output));
    p.check([](const InputNode& n, LoadConfig& l) {
      const auto only = [&](const char* key, ArrivalKind kind) {
        if (n.has(key) && l.arrivals != kind) {
          n.at(key).fail("applies to arrivals: " + std::string(arrival_names().name(kind)) + " only");
        }
      };
      only("rate", ArrivalKind::poisson);
      only("diurnal", ArrivalKind::diurnal);
      only("trace", ArrivalKind::trace);
      if (l.arrivals == ArrivalKind::diurnal && l.diurnal.empty()) (void)n.at("diurnal");
      if (l.arrivals == ArrivalKind::trace) {
        if (l.trace.empty()) (void)n.at("trace");
        if (!n.has("prompt")) l.prompt.kind = LengthKind::trace;
        if (!n.has("output")) l.output.kind = LengthKind::trace;
      }
      for (const char* key : {"prompt", "output"}) {
        const LengthDist& d = std::string(key) == "prompt" ? l.prompt : l.output;
        if (d.kind == LengthKind::trace && l.arrivals != ArrivalKind::trace) {
          (n.has(key) ? n.at(key) : n).fail("dist: trace needs arrivals: trace");
        }
      }
    });
    return p;
  }();
  return t;
}

const ParamTable<ServiceLevel>& slo_params() {
  static const ParamTable<ServiceLevel> t = [] {
    ParamTable<ServiceLevel> p("slo", "The latency target a request must meet to count towards goodput.");
    p.field("ttft", &ServiceLevel::ttft, {.help = "time to first token at most", .positive = true});
    p.field("tpot", &ServiceLevel::tpot,
            {.help = "time per output token after the first at most (a one-token output meets it)", .positive = true});
    p.field("attainment", &ServiceLevel::attainment,
            {.help = "share of arriving requests that must finish within ttft and tpot for a deployment to meet "
                     "the SLO (clustersim plan; rejected and unfinished requests miss)",
             .max = 1.0, .positive = true});
    return p;
  }();
  return t;
}

}  // namespace

const ParamTable<ServingConfig>& serving_params() {
  static const ParamTable<ServingConfig> t = [] {
    ParamTable<ServingConfig> p("serving", "An inference service simulated request by request (docs/serving.md).");
    p.section(&ServingConfig::deployment, deployment_params());
    p.section(&ServingConfig::engine, engine_params());
    p.section(&ServingConfig::load, load_params(), true);
    p.section(&ServingConfig::slo, slo_params());
    p.field("duration", &ServingConfig::duration,
            {.help = "requests arrive during this long (a trace: its own span, cut at this when given)",
             .positive = true, .default_text = "10min (a trace: its span)"});
    p.field("drain", &ServingConfig::drain,
            {.help = "after the last arrival, how long requests in flight may still finish (an overloaded service "
                     "stops here with the rest unfinished)",
             .min = 0.0});
    p.field("seed", &ServingConfig::seed, {.help = "random seed of arrivals and lengths", .min = 0.0});
    p.check([](const InputNode& n, ServingConfig& c) {
      if (c.deployment.disaggregated() && c.engine.batching == Batching::static_batch) {
        const InputNode engine = n.at("engine");
        engine.at("batching").fail("static batching cannot hand requests from a prefill pool to a decode pool: use "
                                   "continuous or chunked-prefill with a disaggregated deployment");
      }
    });
    return p;
  }();
  return t;
}

ServingConfig parse_serving_config(const InputNode& section) {
  ServingConfig c;
  serving_params().read(section, c);
  return c;
}

}  // namespace cs
