// The shared cluster over time, event by event: jobs submitted, queued, placed on GPUs and nodes, preempted,
// resized, failed and restarted; services autoscaled each hour and placed beside (or, without isolation, on top
// of) the jobs. Everything the simulation needs about a job or a service comes in as numbers and functions
// (schedule_model.hpp builds them from scenarios), so policies and placement can be tested by hand.
//
// Time advances from event to event (submits, finishes, checkpoints, hour boundaries, node failures and repairs);
// between events every running job progresses at its current rate. A job's work is measured in seconds at its
// largest size alone; its rate is its speed at its current size, times what co-located replicas leave it, and
// zero while it (re)starts. Services are evaluated once per hour at the rate of that hour.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/schedule/colocation_model.hpp"
#include "sim/schedule/schedule_config.hpp"

namespace cs {

enum class JobKind { training, batch };

/// A training or batch job as the scheduler sees it.
struct WorkJob {
  std::string name, tenant;
  JobKind kind = JobKind::batch;
  std::vector<int> sizes;            ///< GPU counts it can run on, ascending (one for a fixed job)
  std::vector<double> speed;         ///< work-seconds per second at each size (1 at the largest)
  double work_s = 0;                 ///< seconds of work at the largest size
  double submit_s = 0;
  int priority = 0;
  double checkpoint_s = 3600;        ///< a failure loses the progress since the last checkpoint
  double restart_s = 0;              ///< from each (re)start to the first useful step
  double memory_per_gpu = 0;         ///< bytes; 0: unknown
  double power_per_gpu_w = 0;        ///< GPU board power while it runs
  // Its Slurm partition (schedule_config.hpp's PartitionSpec), all defaults without one.
  std::string partition;             ///< empty: any node
  std::vector<int> nodes;            ///< the partition's node indices; empty: every node
  int tier = 0;                      ///< the partition's priority tier: a higher tier is considered first
  double max_run_s = 0;              ///< the partition's MaxTime: a run stops there and requeues (0: no limit)
  [[nodiscard]] bool elastic() const noexcept { return sizes.size() > 1; }
};

/// How a service does in one hour at a per-replica request rate, its iterations slowed by `slowdown`.
struct HourService {
  double attainment = 1;             ///< share of requests within the SLO
  std::optional<double> ttft_p99_s, tpot_p99_s;
  double busy = 0;                   ///< share of the time a replica runs iterations
  std::optional<double> latency_p99_s;  ///< request latency, arrival to response (measured services)
};

struct ServiceModel {
  std::string name, tenant;
  bool measured = false;             ///< given by measured latency against batch size, not a serving scenario
  int gpus_per_replica = 1;
  int min_replicas = 1, max_replicas = 1 << 20;
  int priority = 100;
  std::array<double, 24> rate{};     ///< requests/s by hour of the day
  /// Replicas the autoscaler asks for at a request rate (before min/max).
  std::function<int(double rate)> replicas_for;
  /// One replica at `rate` requests/s, iterations slowed by `slowdown`.
  std::function<HourService(double rate, double slowdown)> evaluate;
  CoLocation colocation;             ///< on a training job's GPUs under the cluster's isolation
  double memory_per_gpu = 0;         ///< bytes the engine holds per GPU
  double power_per_gpu_busy_w = 0;   ///< GPU board power while iterating
};

struct ClusterModel {
  int gpus = 0, gpus_per_node = 8;
  double span_s = 86400;
  Policy policy = Policy::backfill;
  bool preemption = true;
  Isolation isolation = Isolation::nodes;
  double gpu_memory = 80e9;          ///< bytes
  double node_failure_rate_per_s = 0;  ///< 0: no failures
  double repair_s = 86400;
  std::uint64_t seed = 1;
  // Power (W) and cost.
  double gpu_idle_w = 70;
  double gpu_tdp_w = 700;
  double memory_bound_load = 0.6;    ///< facility.power: memory-bound draw = idle + this x (TDP - idle)
  double node_base_w = 0;            ///< a node's non-GPU draw
  double fabric_w = 0;               ///< switches, optics, other powered parts
  double pue = 1.0;
  std::optional<double> circuit_w;
  /// GPUs each tenant's jobs may hold at once (Kueue's nominal quota of a ClusterQueue, without borrowing);
  /// tenants not named have no limit. Services are not counted (they are Deployments, not queued workloads).
  std::map<std::string, int> quotas;
  double fixed_usd_per_s = 0;        ///< capital and every fixed cost, per second
  double usd_per_joule = 0;          ///< facility electricity
};

struct JobOutcome {
  std::string name, tenant;
  JobKind kind = JobKind::batch;
  double submitted_s = 0;
  std::optional<double> started_s, finished_s;
  double gpu_hours = 0, lost_work_s = 0, queued_s = 0, energy_j = 0, cost_usd = 0;
  double progress = 0;               ///< share of its work done at the end
  int preemptions = 0, resizes = 0, failures = 0, oom_kills = 0;
  std::string partition;             ///< WorkJob::partition
  int time_limits = 0;               ///< runs stopped at the partition's max_time (checkpointed, requeued)
  std::string never_fits;            ///< why it cannot run on this cluster at all; empty otherwise
};

struct ServiceHour {
  double rate = 0;                   ///< requests/s
  int replicas = 0, colocated = 0, wanted = 0;
  HourService outcome;
};

struct ServiceOutcome {
  std::string name, tenant;
  bool measured = false;             ///< ServiceModel::measured: latency_p99_s instead of TTFT and TPOT
  std::vector<ServiceHour> hours;
  double slo_attainment = 1;         ///< request-weighted over the span
  std::optional<double> ttft_p99_s, tpot_p99_s;  ///< the worst hour's p99
  std::optional<double> latency_p99_s;           ///< the worst hour's p99 request latency (measured services)
  double gpu_hours = 0, energy_j = 0, cost_usd = 0;
  int oom_kills = 0;
  std::string colocation;            ///< the co-location model's line, when replicas shared GPUs
};

struct ClusterHour {
  double allocated_fraction = 0, busy_fraction = 0;  ///< GPU-time-weighted over the hour
  double energy_kwh = 0, peak_facility_kw = 0;
  bool over_circuit = false;
};

struct ScheduleResult {
  std::vector<JobOutcome> jobs;
  std::vector<ServiceOutcome> services;
  std::vector<ClusterHour> hours;
  double gpu_allocated_fraction = 0, gpu_busy_fraction = 0, energy_kwh = 0, peak_facility_kw = 0;
  double fragmentation = 0;          ///< mean share of free GPUs stranded in partly used nodes
  int node_failures = 0, over_circuit_hours = 0;
  double tco_usd = 0, idle_usd = 0;
  std::map<std::string, double> per_tenant_usd;
  std::int64_t events = 0;
  std::vector<std::string> warnings;
  /// The Gantt: every interval a job or a replica held GPUs ([from, to) seconds, the GPUs' first index, count).
  struct Interval {
    std::string who;
    bool service = false, colocated = false;
    double from_s = 0, to_s = 0;
    int first_gpu = 0, gpus = 0;
  };
  std::vector<Interval> intervals;
};

[[nodiscard]] ScheduleResult simulate_cluster(const ClusterModel& cluster, const std::vector<WorkJob>& jobs,
                                              const std::vector<ServiceModel>& services);

}  // namespace cs
