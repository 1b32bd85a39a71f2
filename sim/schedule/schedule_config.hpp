// A schedule file: one cluster over a span of time, the training jobs, batch jobs and inference services that
// share it, the scheduling policy and the isolation between co-located work (docs/schedule.md lists every key).
// Value types, read by load_schedule_file(); the jobs' own scenarios are loaded by the schedule model.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/input/input_node.hpp"
#include "sim/input/param_table.hpp"
#include "sim/input/yaml_edit.hpp"
#include "sim/schedule/colocation_model.hpp"
#include "sim/schedule/job_trace.hpp"
#include "sim/schedule/measured_service.hpp"

namespace cs {

/// How pending jobs start (docs/schedule.md):
///   fifo:     submit order; the head waits for room and nothing passes it (gang scheduling, no backfill).
///   backfill: Slurm's EASY backfill: the head gets a reservation at the earliest time enough GPUs free up;
///             later jobs start now when they finish before it (by their expected run time).
///   priority: highest priority first (Kubernetes priority classes, Slurm's multifactor priority reduced to
///             its priority); with preemption, a pending job preempts lower-priority running ones (requeued).
///   tidal:    priority, with elastic training growing into what the services leave and shrinking (or, with
///             shared GPUs, co-locating) when their load comes back.
enum class Policy { fifo, backfill, priority, tidal };
[[nodiscard]] const EnumTable<Policy>& policy_names();

/// A Slurm partition: a named set of nodes that jobs name; a job runs only on its partition's nodes
/// (docs/schedule.md). Nodes are given as a count (the nodes after the previous partition's last) or as index
/// ranges ("0-1,3"); partitions may overlap, as Slurm's do.
struct PartitionSpec {
  std::string name;
  int nodes = 0;               ///< a count: the nodes after the previous partition's last
  std::string node_indices;    ///< or index ranges "0-1,3" (checked when read)
  std::optional<Time> max_time;  ///< Slurm's MaxTime: a run stops there (a checkpoint, then requeued)
  std::vector<std::string> tenants;  ///< Slurm's AllowAccounts; empty: every tenant
  int priority_tier = 0;       ///< Slurm's PriorityTier: a higher tier's pending jobs are considered first
  SourceLocation where;
};

struct ClusterSpec {
  std::string scenario;        ///< base scenario: topology, GPU profile, facility, price book
  int gpus = 0;                ///< 0: the base scenario's
  std::optional<Watts> circuit;  ///< provisioned facility power; an hour above it is reported (a breaker trip)
};

struct TrainingJobSpec {
  std::string name, tenant = "default";
  std::string scenario;        ///< training scenario; its cluster.gpus is set to the job's allocation
  int gpus = 0;                ///< fixed size; 0 with min_gpus/max_gpus for an elastic job
  int min_gpus = 0, max_gpus = 0;
  std::optional<double> tokens;  ///< token budget; absent: the scenario's training.tokens
  int priority = 0;
  Time submit;
  Time checkpoint_interval = Time::from_seconds(3600);
  std::optional<Time> restart;  ///< restart overhead; absent: the facility's reliability.restart_overhead
  std::vector<Setting> set;    ///< scenario keys written over the scenario's values
  std::string partition;       ///< empty: any node
  SourceLocation where, partition_where;
};

struct BatchJobSpec {
  std::string name, tenant = "default";
  int gpus = 1;
  Time duration;
  int priority = 0;
  Time submit;
  Bytes memory_per_gpu;        ///< for the out-of-memory check when co-located (0: unknown, not checked)
  std::string partition;       ///< empty: any node
  SourceLocation where, partition_where;
};

/// A service given by its measured latency against batch size instead of a serving scenario
/// (measured_service.hpp): a recommendation model, or any model clustersim does not replay.
struct MeasuredServiceSpec {
  std::vector<LatencyPoint> latency;  ///< batches ascending from 1 (inline, or read from latency_file)
  std::string latency_file;    ///< CSV batch,latency_s, resolved against the schedule's directory
  int gpus = 1;                ///< GPUs per replica
  Bytes memory;                ///< GPU memory a replica holds (0: not checked)
  int max_batch = 0;           ///< the batcher's largest batch; 0: the largest measured
  Time max_queue_delay;        ///< the batcher dispatches the oldest request after at most this wait
  Time slo;                    ///< request latency bound (target_attainment of requests within it: 0.99 = p99)
  RequestDistribution arrivals = RequestDistribution::poisson;
  std::int64_t seed = 1;
  bool cuda_graphs = true;     ///< co-location: a batch's kernels submitted at once (a graph) or trickling in
  std::optional<double> gpu_share;  ///< co-location: kernel time over a batch's latency; absent: the file's
  double compute_bound_share = 0;   ///< power: 0 memory-bound (facility memory_bound_load), 1 at TDP
  SourceLocation where, max_batch_where;
};

struct ServiceSpec {
  std::string name, tenant = "default";
  std::string scenario;        ///< serving scenario: model, deployment (tp, pp), engine, SLO, lengths
  std::optional<MeasuredServiceSpec> measured;  ///< instead of a scenario
  std::array<double, 24> rate{};  ///< requests/s in each hour of the day from midnight
  int min_replicas = 1, max_replicas = 1 << 20;
  double target_attainment = 0.99;  ///< autoscaling: replicas so that this share of requests meets the SLO
  int priority = 100;
  double mps_limit = 0;        ///< isolation mps: the replica's SM share (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE / 100)
  int mig_slices = 3;          ///< isolation mig: compute slices of a replica's instance
  std::vector<Setting> set;    ///< scenario keys written over the scenario's values
  SourceLocation where;
};

/// A public job trace read as batch jobs (job_trace.hpp).
struct TraceSpec {
  std::string file;            ///< resolved against the schedule's directory
  TraceFormat format = TraceFormat::csv;
  std::string tenant = "trace";
  int limit = 0;               ///< jobs at most, in submit order (0: all)
  Time offset;                 ///< the trace's first submit is at this time of the span
  std::string partition;       ///< its jobs' partition; empty: any node
  SourceLocation where, partition_where;
};

struct ScheduleConfig {
  std::string name;
  std::string path;            ///< the file, for resolving relative paths
  Time span = Time::from_seconds(24 * 3600.0);
  ClusterSpec cluster;
  Policy policy = Policy::backfill;
  bool preemption = true;      ///< priority, tidal: a higher-priority job may preempt (requeue) lower ones
  Isolation isolation = Isolation::nodes;
  bool failures = true;        ///< node failures from the facility's reliability section
  std::int64_t seed = 1;
  std::string colocation;      ///< co-location constants file; empty: data/colocation.yaml
  std::map<std::string, int> quotas;  ///< tenant -> GPUs its jobs may hold at once (ClusterModel::quotas)
  std::vector<PartitionSpec> partitions;
  std::vector<TrainingJobSpec> training;
  std::vector<BatchJobSpec> batch;
  std::vector<ServiceSpec> services;
  std::vector<TraceSpec> traces;
};

/// The schedule file's declared keys (schema, docs); the job lists' entries are declared by their own tables.
[[nodiscard]] const ParamSection& schedule_schema();
/// Reads and checks a schedule file (relative paths resolved against its directory). Throws InputError located
/// at the offending key.
[[nodiscard]] ScheduleConfig load_schedule_file(const std::string& path, const std::vector<Setting>& settings = {});
/// A partition's nodes: a count N takes the N nodes from `next` (the node after the previous partition's last),
/// node_indices "0-1,3" name them. Throws InputError at the partition when a node is beyond the cluster's `nodes`.
[[nodiscard]] std::vector<int> partition_nodes(const PartitionSpec& p, int next, int nodes);
/// Whether a parsed YAML document is a schedule file rather than a scenario: it has `span:`, or lists of
/// `training:`, `services:`, `batch:` or `traces:` (a scenario's training is a mapping). A sweep's base may be
/// either.
[[nodiscard]] bool is_schedule_document(const YAML::Node& root);
/// The same from YAML text named `name`.
[[nodiscard]] ScheduleConfig parse_schedule(const InputNode& root, const std::string& path);

}  // namespace cs
