#include "sim/schedule/schedule_config.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

namespace cs {

const EnumTable<Policy>& policy_names() {
  static const EnumTable<Policy> t{
      {Policy::fifo, "fifo"}, {Policy::backfill, "backfill"}, {Policy::priority, "priority"}, {Policy::tidal, "tidal"}};
  return t;
}

namespace {

template <class T>
ParamSection list_schema(const ParamTable<T>& table) {
  ParamSection s = table.schema();
  s.list = true;
  return s;
}

template <class T>
std::vector<T> read_list(const InputNode& n, const ParamTable<T>& table) {
  n.require(n.is_sequence(), "must be a list of entries");
  std::vector<T> out;
  for (const InputNode& e : n.elements()) {
    e.require(e.is_map(), "an entry must be a mapping of keys");
    T item;
    table.read(e, item);
    out.push_back(std::move(item));
  }
  return out;
}

std::string resolve(const std::string& base_file, const std::string& relative) {
  if (relative.empty() || std::filesystem::path(relative).is_absolute()) return relative;
  return (std::filesystem::path(base_file).parent_path() / relative).lexically_normal().string();
}

/// A partition's `node_indices:` ("0-1,3") as [first, last] ranges; nullopt when malformed.
std::optional<std::vector<std::pair<int, int>>> parse_node_indices(const std::string& text) {
  const auto whole = [](const std::string& t) -> std::optional<int> {
    if (t.empty() || t.size() > 6 || t.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return std::stoi(t);
  };
  std::vector<std::pair<int, int>> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    std::string item = text.substr(at, comma - at);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    const std::size_t dash = item.find('-');
    const auto a = whole(item.substr(0, dash));
    const auto b = dash == std::string::npos ? a : whole(item.substr(dash + 1));
    if (!a || !b || *b < *a) return std::nullopt;
    out.push_back({*a, *b});
    at = comma + 1;
  }
  return out;
}

std::string read_node_indices(const InputNode& n) {
  const std::string text = n.as<std::string>();
  n.require(parse_node_indices(text).has_value(),
            "must be node index ranges (\"0-1,3\": nodes 0, 1 and 3), got \"" + text + "\"");
  return text;
}

std::vector<std::string> read_partition_tenants(const InputNode& n) {
  n.require(n.is_sequence(), "must be a list of tenants ([research, product])");
  std::vector<std::string> out;
  for (const InputNode& e : n.elements()) out.push_back(e.as<std::string>());
  return out;
}

/// `set:` of a job or service: a mapping of scenario key path to value, written over its scenario.
std::vector<Setting> read_set(const InputNode& n) {
  n.require(n.is_map(), "must be a mapping of scenario key path to value (serving.engine.max_seqs: 128)");
  std::vector<Setting> out;
  for (const std::string& key : n.keys()) {
    const InputNode v = n.at(key);
    v.require(v.is_scalar(), "a value to set must be a scalar");
    out.push_back({key, v.as<std::string>()});
  }
  return out;
}

/// `quotas:` tenant -> GPUs, each a positive whole number.
std::map<std::string, int> read_quotas(const InputNode& n) {
  n.require(n.is_map(), "must be a mapping of tenant to GPUs (research: 24)");
  std::map<std::string, int> out;
  for (const std::string& tenant : n.keys()) {
    const InputNode v = n.at(tenant);
    const int gpus = v.as<int>();
    v.require(gpus > 0, "must be a positive whole number of GPUs");
    out[tenant] = gpus;
  }
  return out;
}

template <class T>
void add_set(ParamTable<T>& p) {
  ParamSpec set{.key = "set", .type = ParamType::mapping,
                .help = "scenario keys written over its scenario's values: a mapping of key path to value",
                .default_text = "none"};
  set.check = [](const InputNode& n) { (void)read_set(n); };
  p.custom(std::move(set), [](const InputNode& n, T& out) { out.set = read_set(n); });
}

const ParamTable<ClusterSpec>& cluster_params() {
  static const ParamTable<ClusterSpec> t = [] {
    ParamTable<ClusterSpec> p("cluster", "The shared cluster.");
    p.field("scenario", &ClusterSpec::scenario,
            {.help = "a scenario file (relative to the schedule) whose topology, GPU profile, facility and price "
                     "book are the cluster's",
             .required = true});
    p.field("gpus", &ClusterSpec::gpus,
            {.help = "GPUs in the cluster", .positive = true, .default_text = "the scenario's cluster.gpus"});
    p.field("circuit", &ClusterSpec::circuit,
            {.help = "provisioned facility power: an hour whose peak exceeds it is reported (a tripped breaker)",
             .positive = true, .default_text = "not checked"});
    return p;
  }();
  return t;
}

const ParamTable<PartitionSpec>& partition_params() {
  static const ParamTable<PartitionSpec> t = [] {
    ParamTable<PartitionSpec> p("partitions", "Slurm partitions: named sets of nodes that jobs name (a list; each "
                                              "entry has these keys).");
    p.field("name", &PartitionSpec::name, {.help = "the partition's name, unique in the file", .required = true});
    p.field("nodes", &PartitionSpec::nodes,
            {.help = "its nodes as a count: the nodes after the previous partition's last (the first's from node 0)",
             .positive = true, .default_text = "give nodes or node_indices"});
    ParamSpec indices{.key = "node_indices", .type = ParamType::text,
                      .help = "its nodes as index ranges (\"0-1,3\"), instead of nodes; partitions may overlap",
                      .default_text = "none"};
    indices.check = [](const InputNode& n) { (void)read_node_indices(n); };
    p.custom(std::move(indices), [](const InputNode& n, PartitionSpec& s) { s.node_indices = read_node_indices(n); });
    p.field("max_time", &PartitionSpec::max_time,
            {.help = "Slurm's MaxTime: a run that reaches it checkpoints and is requeued (a batch job longer than "
                     "it never runs)",
             .positive = true, .default_text = "no limit"});
    ParamSpec tenants{.key = "tenants", .type = ParamType::list,
                      .help = "tenants whose jobs may name it (Slurm's AllowAccounts)", .default_text = "every tenant"};
    tenants.check = [](const InputNode& n) { (void)read_partition_tenants(n); };
    p.custom(std::move(tenants), [](const InputNode& n, PartitionSpec& s) { s.tenants = read_partition_tenants(n); });
    p.field("priority_tier", &PartitionSpec::priority_tier,
            {.help = "Slurm's PriorityTier: pending jobs of a higher tier are considered first, before priority"});
    p.check([](const InputNode& n, PartitionSpec& s) {
      s.where = n.location();
      if (n.has("nodes") == n.has("node_indices")) {
        n.fail("give nodes (a count) or node_indices (\"0-1,3\"), one of them");
      }
    });
    return p;
  }();
  return t;
}

/// `partition:` of a job: the name, and where it was written for the schedule's check.
template <class T>
void add_partition(ParamTable<T>& p, const char* help) {
  p.field("partition", &T::partition, {.help = help, .default_text = "none: any node"});
}

const ParamTable<TrainingJobSpec>& training_params() {
  static const ParamTable<TrainingJobSpec> t = [] {
    ParamTable<TrainingJobSpec> p("training", "Training jobs (a list; each entry has these keys).");
    p.field("name", &TrainingJobSpec::name, {.help = "the job's name, unique in the file", .required = true});
    p.field("tenant", &TrainingJobSpec::tenant, {.help = "who pays for it (cost per tenant)"});
    p.field("scenario", &TrainingJobSpec::scenario,
            {.help = "a training scenario (relative to the schedule); its cluster.gpus is set to the job's GPUs "
                     "and parallelism.dp follows",
             .required = true});
    p.field("gpus", &TrainingJobSpec::gpus,
            {.help = "a fixed allocation", .positive = true, .default_text = "the scenario's cluster.gpus"});
    p.field("min_gpus", &TrainingJobSpec::min_gpus,
            {.help = "elastic: fewest GPUs it runs on (with max_gpus)", .positive = true, .default_text = "none"});
    p.field("max_gpus", &TrainingJobSpec::max_gpus,
            {.help = "elastic: most GPUs it runs on", .positive = true, .default_text = "none"});
    p.field("tokens", &TrainingJobSpec::tokens,
            {.help = "tokens to train", .positive = true, .default_text = "the scenario's training.tokens"});
    p.field("priority", &TrainingJobSpec::priority, {.help = "higher runs first (priority, tidal)"});
    p.field("submit", &TrainingJobSpec::submit, {.help = "submit time from the start of the span", .min = 0.0});
    p.field("checkpoint_interval", &TrainingJobSpec::checkpoint_interval,
            {.help = "a failure loses the work since the last checkpoint", .positive = true});
    p.field("restart", &TrainingJobSpec::restart,
            {.help = "time from a (re)start to the first step (scheduling, initialisation, checkpoint restore)",
             .min = 0.0, .default_text = "facility.reliability.restart_overhead"});
    add_set(p);
    add_partition(p, "the partition it runs in (its nodes only)");
    p.check([](const InputNode& n, TrainingJobSpec& j) {
      j.where = n.location();
      j.partition_where = n.has("partition") ? n.at("partition").location() : n.location();
      if (n.has("gpus") && (n.has("min_gpus") || n.has("max_gpus"))) {
        n.at("gpus").fail("give gpus (fixed) or min_gpus and max_gpus (elastic), not both");
      }
      if (n.has("min_gpus") != n.has("max_gpus")) (void)n.at(n.has("min_gpus") ? "max_gpus" : "min_gpus");
      if (j.min_gpus > j.max_gpus) n.at("min_gpus").fail("exceeds max_gpus");
    });
    return p;
  }();
  return t;
}

const ParamTable<BatchJobSpec>& batch_params() {
  static const ParamTable<BatchJobSpec> t = [] {
    ParamTable<BatchJobSpec> p("batch", "Batch jobs (evaluations, fine-tunes) of known size and duration (a list).");
    p.field("name", &BatchJobSpec::name, {.help = "the job's name, unique in the file", .required = true});
    p.field("tenant", &BatchJobSpec::tenant, {.help = "who pays for it"});
    p.field("gpus", &BatchJobSpec::gpus, {.help = "GPUs it needs, all at once", .positive = true});
    p.field("duration", &BatchJobSpec::duration,
            {.help = "run time on its GPUs, alone", .positive = true, .required = true});
    p.field("priority", &BatchJobSpec::priority, {.help = "higher runs first (priority, tidal)"});
    p.field("submit", &BatchJobSpec::submit, {.help = "submit time from the start of the span", .min = 0.0});
    p.field("memory_per_gpu", &BatchJobSpec::memory_per_gpu,
            {.help = "GPU memory it holds (for the out-of-memory check when GPUs are shared)", .min = 0.0,
             .default_text = "0: not checked"});
    add_partition(p, "the partition it runs in (its nodes only)");
    p.check([](const InputNode& n, BatchJobSpec& j) {
      j.where = n.location();
      j.partition_where = n.has("partition") ? n.at("partition").location() : n.location();
    });
    return p;
  }();
  return t;
}

std::array<double, 24> read_rates(const InputNode& n) {
  const auto elements = n.elements();
  n.require(elements.size() == 24 || elements.size() == 1,
            "needs 24 rates (requests/s in each hour of the day from midnight) or one for every hour, got " +
                std::to_string(elements.size()));
  std::array<double, 24> r{};
  for (std::size_t h = 0; h < 24; ++h) {
    r[h] = param_detail::read_checked<double>(elements[elements.size() == 1 ? 0 : h], {.min = 0.0});
  }
  return r;
}

/// One measured point of an inline latency table.
struct MeasuredLatencyRow {
  int batch = 0;
  Time latency;
};

const ParamTable<MeasuredLatencyRow>& measured_latency_row_params() {
  static const ParamTable<MeasuredLatencyRow> t = [] {
    ParamTable<MeasuredLatencyRow> p("latency", "The measured latency table inline (a list; each entry has these "
                                                "keys), batches ascending from 1.");
    p.field("batch", &MeasuredLatencyRow::batch,
            {.help = "requests in the batch", .positive = true, .required = true});
    p.field("latency", &MeasuredLatencyRow::latency,
            {.help = "the batch's measured latency on one replica, alone", .positive = true, .required = true});
    return p;
  }();
  return t;
}

/// `latency:` inline, checked as read_latency_csv checks a file: batches ascending from 1.
std::vector<LatencyPoint> read_measured_latency(const InputNode& n) {
  n.require(n.is_sequence(), "must be a list of {batch, latency} entries");
  std::vector<LatencyPoint> out;
  for (const InputNode& e : n.elements()) {
    e.require(e.is_map(), "an entry must be a mapping {batch: 8, latency: 12ms}");
    MeasuredLatencyRow row;
    measured_latency_row_params().read(e, row);
    if (out.empty() && row.batch != 1) {
      e.at("batch").fail("the table must start at batch 1 (a lone request is a batch of 1; latency is not "
                         "extrapolated)");
    }
    if (!out.empty() && row.batch <= out.back().batch) {
      e.at("batch").fail("must be above the previous entry's " + std::to_string(out.back().batch) +
                         " (batches ascending, each once)");
    }
    out.push_back({row.batch, row.latency.seconds()});
  }
  n.require(!out.empty(), "the latency table has no entries");
  return out;
}

const ParamTable<MeasuredServiceSpec>& measured_params() {
  static const ParamTable<MeasuredServiceSpec> t = [] {
    ParamTable<MeasuredServiceSpec> p(
        "measured", "A service given by its measured latency against batch size instead of a serving scenario (a "
                    "model clustersim does not replay, such as a recommendation model); docs/schedule.md.");
    ParamSection rows = list_schema(measured_latency_row_params());
    p.custom_section(std::move(rows), [](const InputNode& n, MeasuredServiceSpec& m) {
      m.latency = read_measured_latency(n);
    });
    p.field("latency_file", &MeasuredServiceSpec::latency_file,
            {.help = "the latency table as CSV with the columns batch,latency_s (seconds), relative to the "
                     "schedule; instead of latency",
             .default_text = "none"});
    p.field("gpus", &MeasuredServiceSpec::gpus, {.help = "GPUs per replica (in one node)", .positive = true});
    p.field("memory", &MeasuredServiceSpec::memory,
            {.help = "GPU memory one replica holds, over all its GPUs (the out-of-memory check when co-located)",
             .min = 0.0, .default_text = "0: not checked"});
    p.field("max_batch", &MeasuredServiceSpec::max_batch,
            {.help = "the dynamic batcher's largest batch (Triton's max_batch_size), at most the largest measured",
             .positive = true, .default_text = "the largest measured batch"});
    p.field("max_queue_delay", &MeasuredServiceSpec::max_queue_delay,
            {.help = "the batcher dispatches a smaller batch once its oldest request has waited this long "
                     "(Triton's max_queue_delay_microseconds)",
             .min = 0.0});
    p.field("slo", &MeasuredServiceSpec::slo,
            {.help = "request latency bound, arrival to response; the service's target_attainment of requests "
                     "within it (0.99: a p99 SLO)",
             .positive = true, .required = true});
    p.choice("arrivals", &MeasuredServiceSpec::arrivals, request_distribution_names(),
             {.help = "requests' gaps in the sizing probe: poisson (exponential) or constant (equal), as "
                      "perf_analyzer's --request-distribution"});
    p.field("seed", &MeasuredServiceSpec::seed, {.help = "random seed of the probe's arrivals", .min = 0.0});
    p.field("cuda_graphs", &MeasuredServiceSpec::cuda_graphs,
            {.help = "co-location: a batch's kernels are submitted at once (a CUDA graph, TensorRT) rather than "
                     "launched eagerly one by one"});
    p.field("gpu_share", &MeasuredServiceSpec::gpu_share,
            {.help = "co-location: kernel time over a batch's latency (the rest is host work)", .max = 1.0,
             .positive = true,
             .default_text = "the co-location file's graph_gpu_share or eager_gpu_share"});
    p.field("compute_bound_share", &MeasuredServiceSpec::compute_bound_share,
            {.help = "power while batches run: 0 memory-bound (facility.power.memory_bound_load, as embedding "
                     "lookups), 1 compute-bound (TDP)",
             .min = 0.0, .max = 1.0});
    p.check([](const InputNode& n, MeasuredServiceSpec& m) {
      m.where = n.location();
      m.max_batch_where = n.has("max_batch") ? n.at("max_batch").location() : n.location();
      if (n.has("latency") && n.has("latency_file")) n.at("latency_file").fail("give latency or latency_file, not both");
      if (!n.has("latency") && !n.has("latency_file")) {
        n.fail("needs its latency table: latency (a list of {batch, latency}) or latency_file (CSV batch,latency_s)");
      }
      if (!m.latency.empty() && m.max_batch > m.latency.back().batch) {
        n.at("max_batch").fail("exceeds the largest measured batch " + std::to_string(m.latency.back().batch) +
                               " (latency is not extrapolated)");
      }
    });
    return p;
  }();
  return t;
}

const ParamTable<ServiceSpec>& service_params() {
  static const ParamTable<ServiceSpec> t = [] {
    ParamTable<ServiceSpec> p("services", "Inference services (a list; each entry has these keys).");
    p.field("name", &ServiceSpec::name, {.help = "the service's name, unique in the file", .required = true});
    p.field("tenant", &ServiceSpec::tenant, {.help = "who pays for it"});
    p.field("scenario", &ServiceSpec::scenario,
            {.help = "a serving scenario (relative to the schedule): model, deployment (tp, pp of one replica), "
                     "engine, SLO and lengths; its load and replicas are replaced by the schedule's",
             .default_text = "required unless measured"});
    p.custom_section(measured_params().schema(), [](const InputNode& n, ServiceSpec& s) {
      s.measured.emplace();
      measured_params().read(n, *s.measured);
    });
    ParamSpec rate{.key = "rate", .type = ParamType::list,
                   .help = "requests per second in each hour of the day from midnight: 24 values, or one for "
                           "every hour",
                   .required = true};
    rate.check = [](const InputNode& n) { (void)read_rates(n); };
    p.custom(std::move(rate), [](const InputNode& n, ServiceSpec& s) { s.rate = read_rates(n); });
    p.field("min_replicas", &ServiceSpec::min_replicas, {.help = "replicas at least", .min = 0.0});
    p.field("max_replicas", &ServiceSpec::max_replicas,
            {.help = "replicas at most", .positive = true, .default_text = "no limit"});
    p.field("target_attainment", &ServiceSpec::target_attainment,
            {.help = "the autoscaler runs enough replicas that this share of requests meets the SLO", .max = 1.0,
             .positive = true});
    p.field("priority", &ServiceSpec::priority, {.help = "against jobs (priority, tidal)"});
    p.field("mps_limit", &ServiceSpec::mps_limit,
            {.help = "isolation mps: the replica's share of the SMs (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE / 100); 0: "
                     "no limit",
             .min = 0.0, .max = 1.0});
    p.field("mig_slices", &ServiceSpec::mig_slices,
            {.help = "isolation mig: compute slices (of 7) of a replica's instance", .positive = true});
    add_set(p);
    p.check([](const InputNode& n, ServiceSpec& s) {
      s.where = n.location();
      if (s.min_replicas > s.max_replicas) n.at("min_replicas").fail("exceeds max_replicas");
      if (n.has("scenario") && n.has("measured")) n.at("measured").fail("give scenario or measured, not both");
      if (!n.has("scenario") && !n.has("measured")) {
        n.fail("needs a scenario (a serving scenario) or measured (latency against batch size)");
      }
      if (n.has("measured") && n.has("set")) n.at("set").fail("sets scenario keys; a measured service has no scenario");
    });
    return p;
  }();
  return t;
}

const ParamTable<TraceSpec>& trace_params() {
  static const ParamTable<TraceSpec> t = [] {
    ParamTable<TraceSpec> p("traces", "Public job traces read as batch jobs (a list; docs/schedule.md gives each "
                                      "format's mapping).");
    p.field("file", &TraceSpec::file, {.help = "the trace (CSV, or Philly's JSON log), relative to the schedule", .required = true});
    p.choice("format", &TraceSpec::format, trace_format_names(),
             {.help = "csv (submit_s, gpus, duration_s), helios (SenseTime's cluster_log.csv), pai (Alibaba "
                      "PAI's pai_task_table.csv) or philly (Microsoft Philly's cluster_job_log, JSON)"});
    p.field("tenant", &TraceSpec::tenant, {.help = "who pays for its jobs"});
    p.field("limit", &TraceSpec::limit, {.help = "jobs at most, in submit order (0: all)", .min = 0.0});
    p.field("offset", &TraceSpec::offset,
            {.help = "the trace's first submit happens this long after the span starts", .min = 0.0});
    add_partition(p, "the partition its jobs run in");
    p.check([](const InputNode& n, TraceSpec& spec) {
      spec.where = n.location();
      spec.partition_where = n.has("partition") ? n.at("partition").location() : n.location();
    });
    return p;
  }();
  return t;
}

const ParamTable<ScheduleConfig>& schedule_params() {
  static const ParamTable<ScheduleConfig> t = [] {
    ParamTable<ScheduleConfig> p("", "A shared cluster over time (docs/schedule.md).");
    p.custom(format_version_spec("schedule", {1}, "; see docs/schedule.md"), [](const InputNode&, ScheduleConfig&) {});
    p.field("name", &ScheduleConfig::name, {.help = "the schedule's name", .required = true});
    p.field("span", &ScheduleConfig::span, {.help = "simulated time from the start (midnight)", .positive = true});
    p.section(&ScheduleConfig::cluster, cluster_params(), true);
    p.choice("policy", &ScheduleConfig::policy, policy_names(),
             {.help = "fifo, backfill (Slurm EASY), priority (with preemption: Kubernetes priority classes), tidal "
                      "(priority; elastic training takes what services leave at night)"});
    p.field("preemption", &ScheduleConfig::preemption,
            {.help = "priority, tidal: a pending job may preempt lower-priority running jobs (they checkpoint and "
                     "requeue)"});
    p.choice("isolation", &ScheduleConfig::isolation, isolation_names(),
             {.help = "nodes (whole nodes per job), gpus (whole GPUs), mig (service replicas on MIG instances), "
                      "mps, time-slicing (no isolation: services co-located on training GPUs)"});
    ParamSpec quotas{.key = "quotas", .type = ParamType::mapping,
                     .help = "GPUs each tenant's training and batch jobs may hold at once, a mapping of tenant to GPUs "
                             "(Kueue's nominal quota of a ClusterQueue, no borrowing); a job over its quota waits. "
                             "Tenants not named: no limit",
                     .default_text = "none"};
    quotas.check = [](const InputNode& n) { (void)read_quotas(n); };
    p.custom(quotas, [](const InputNode& n, ScheduleConfig& c) { c.quotas = read_quotas(n); });
    p.custom_section(list_schema(partition_params()), [](const InputNode& n, ScheduleConfig& c) {
      c.partitions = read_list(n, partition_params());
    });
    p.field("failures", &ScheduleConfig::failures,
            {.help = "node failures at the facility's reliability rates (restart from the last checkpoint)"});
    p.field("seed", &ScheduleConfig::seed, {.help = "random seed of failures", .min = 0.0});
    p.field("colocation", &ScheduleConfig::colocation,
            {.help = "co-location constants file (relative to the schedule)", .default_text = "data/colocation.yaml"});
    p.custom_section(list_schema(training_params()), [](const InputNode& n, ScheduleConfig& c) {
      c.training = read_list(n, training_params());
    });
    p.custom_section(list_schema(batch_params()), [](const InputNode& n, ScheduleConfig& c) {
      c.batch = read_list(n, batch_params());
    });
    p.custom_section(list_schema(service_params()), [](const InputNode& n, ScheduleConfig& c) {
      c.services = read_list(n, service_params());
    });
    p.custom_section(list_schema(trace_params()), [](const InputNode& n, ScheduleConfig& c) {
      c.traces = read_list(n, trace_params());
    });
    p.check([](const InputNode& n, ScheduleConfig& c) {
      std::set<std::string> names;
      const auto unique = [&](const std::string& name, const char* list) {
        if (!names.insert(name).second) n.at(list).fail("the name \"" + name + "\" is used twice");
      };
      for (const auto& j : c.training) unique(j.name, "training");
      for (const auto& j : c.batch) unique(j.name, "batch");
      for (const auto& s : c.services) unique(s.name, "services");
      if (names.empty() && c.traces.empty()) n.fail("no work: give training, batch, services or traces entries");
      std::map<std::string, const PartitionSpec*> parts;
      std::string known;
      for (const auto& part : c.partitions) {
        if (!parts.emplace(part.name, &part).second) {
          n.at("partitions").fail("the partition \"" + part.name + "\" is named twice");
        }
        known += (known.empty() ? "" : ", ") + part.name;
      }
      const auto in_partition = [&](const std::string& partition, const std::string& tenant, const SourceLocation& at,
                                    const std::string& key) {
        if (partition.empty()) return;
        const auto it = parts.find(partition);
        if (it == parts.end()) {
          throw InputError(at, key, "unknown partition \"" + partition + "\"" +
                                        (known.empty() ? "; the file declares no partitions" : "; the file's are " + known));
        }
        const auto& allowed = it->second->tenants;
        if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), tenant) == allowed.end()) {
          throw InputError(at, key, "tenant \"" + tenant + "\" may not use partition \"" + partition + "\"");
        }
      };
      for (const auto& j : c.training) in_partition(j.partition, j.tenant, j.partition_where, "training." + j.name + ".partition");
      for (const auto& j : c.batch) in_partition(j.partition, j.tenant, j.partition_where, "batch." + j.name + ".partition");
      for (const auto& tr : c.traces) in_partition(tr.partition, tr.tenant, tr.partition_where, "traces.partition");
    });
    return p;
  }();
  return t;
}

}  // namespace

const ParamSection& schedule_schema() { return schedule_params().schema(); }

std::vector<int> partition_nodes(const PartitionSpec& p, int next, int nodes) {
  std::vector<std::pair<int, int>> ranges;
  if (p.nodes > 0) {
    ranges = {{next, next + p.nodes - 1}};
  } else if (auto r = parse_node_indices(p.node_indices)) {
    ranges = *r;
  } else {
    throw InputError(p.where, "partitions." + p.name, "gives neither nodes nor node_indices");
  }
  std::vector<int> out;
  for (const auto& [a, b] : ranges) {
    if (b >= nodes) {
      throw InputError(p.where, "partitions." + p.name + (p.nodes > 0 ? ".nodes" : ".node_indices"),
                       "node " + std::to_string(b) + " is beyond the cluster's " + std::to_string(nodes) +
                           " nodes (0 to " + std::to_string(nodes - 1) + ")" +
                           (p.nodes > 0 ? ", counting on from the previous partition's last" : ""));
    }
    for (int k = a; k <= b; ++k) out.push_back(k);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

ScheduleConfig parse_schedule(const InputNode& root, const std::string& path) {
  ScheduleConfig c;
  schedule_params().read(root, c);
  c.path = path;
  c.cluster.scenario = resolve(path, c.cluster.scenario);
  if (!c.colocation.empty()) c.colocation = resolve(path, c.colocation);
  for (auto& j : c.training) j.scenario = resolve(path, j.scenario);
  for (auto& s : c.services) {
    s.scenario = resolve(path, s.scenario);
    if (!s.measured || s.measured->latency_file.empty()) continue;
    MeasuredServiceSpec& m = *s.measured;
    m.latency_file = resolve(path, m.latency_file);
    try {
      m.latency = read_latency_csv(m.latency_file);
    } catch (const InputError& e) {
      throw InputError(m.where, "services." + s.name + ".measured.latency_file",
                       std::string("the latency table does not read: ") + e.what());
    }
    if (m.max_batch > m.latency.back().batch) {
      throw InputError(m.max_batch_where, "services." + s.name + ".measured.max_batch",
                       "exceeds the largest measured batch " + std::to_string(m.latency.back().batch) + " in " +
                           m.latency_file + " (latency is not extrapolated)");
    }
  }
  for (auto& t : c.traces) t.file = resolve(path, t.file);
  return c;
}

ScheduleConfig load_schedule_file(const std::string& path, const std::vector<Setting>& settings) {
  return parse_schedule(InputNode::load_file(path, settings), path);
}

bool is_schedule_document(const YAML::Node& root) {
  if (!root.IsMap()) return false;
  if (root["span"]) return true;
  for (const char* list : {"training", "services", "batch", "traces"}) {
    if (const YAML::Node n = root[list]; n && n.IsSequence()) return true;
  }
  return false;
}

}  // namespace cs
