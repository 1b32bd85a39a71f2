#include "sim/schedule/cluster_sim.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <queue>
#include <random>
#include <set>

namespace cs {
namespace {

constexpr double kHour = 3600.0;
constexpr double kEps = 1e-9;

std::string hours_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f h", s / kHour);
  return buf;
}

enum class Ev { submit, finish, checkpoint, hour, failure, repair, time_limit };

struct Event {
  double t;
  std::uint64_t seq;
  Ev kind;
  int id;
  std::uint64_t gen;
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

enum class State { waiting, pending, running, done, never };

struct JobState {
  State state = State::waiting;
  std::vector<int> gpus;             ///< allocated
  int size_index = -1;
  double progress = 0, progress_ckpt = 0;
  double run_since = 0;              ///< progress starts here (after the restart time)
  double rate = 0;
  std::uint64_t gen = 0;
  double alloc_since = 0;            ///< when the current allocation began (Gantt)
  std::uint64_t limit_gen = 0;       ///< the run a time-limit event belongs to (a partition's max_time)
};

struct Replica {
  std::vector<int> gpus;
  bool colocated = false;
  double since = 0;
};

class Simulation {
 public:
  Simulation(const ClusterModel& c, const std::vector<WorkJob>& jobs, const std::vector<ServiceModel>& services)
      : c_(c), jobs_(jobs), services_(services), owner_(c.gpus, -1), svc_(c.gpus, -1),
        node_up_(nodes(), true), js_(jobs.size()), replicas_(services.size()), busy_(services.size(), 0.0) {
    r_.jobs.resize(jobs.size());
    node_ok_.resize(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      auto& o = r_.jobs[i];
      o.name = jobs[i].name;
      o.tenant = jobs[i].tenant;
      o.kind = jobs[i].kind;
      o.submitted_s = jobs[i].submit_s;
      o.partition = jobs[i].partition;
      node_ok_[i].assign(static_cast<std::size_t>(nodes()), jobs[i].nodes.empty());
      int partition_gpus = jobs[i].nodes.empty() ? c.gpus : 0;
      for (int n : jobs[i].nodes) {
        if (n < 0 || n >= nodes()) continue;
        node_ok_[i][static_cast<std::size_t>(n)] = true;
        partition_gpus += std::min(c.gpus, (n + 1) * c.gpus_per_node) - n * c.gpus_per_node;
      }
      const int need = jobs[i].sizes.front();
      const auto quota = c.quotas.find(jobs[i].tenant);
      const double limit = jobs[i].max_run_s;
      if (need > c.gpus) {
        o.never_fits = "needs " + std::to_string(need) + " GPUs, the cluster has " + std::to_string(c.gpus);
      } else if (need > partition_gpus) {
        o.never_fits = "needs " + std::to_string(need) + " GPUs, partition " + jobs[i].partition + " has " +
                       std::to_string(partition_gpus);
      } else if (limit > 0 && jobs[i].kind == JobKind::batch && jobs[i].work_s + jobs[i].restart_s > limit) {
        o.never_fits = "runs " + hours_text(jobs[i].work_s + jobs[i].restart_s) + " without a checkpoint, partition " +
                       jobs[i].partition + "'s max_time is " + hours_text(limit);
      } else if (limit > 0 && jobs[i].restart_s >= limit) {
        o.never_fits = "its restart takes " + hours_text(jobs[i].restart_s) + ", partition " + jobs[i].partition +
                       "'s max_time is " + hours_text(limit);
      } else if (quota != c.quotas.end() && need > quota->second) {
        o.never_fits = "needs " + std::to_string(need) + " GPUs, tenant " + jobs[i].tenant + "'s quota is " +
                       std::to_string(quota->second);
      } else if (c.isolation == Isolation::nodes && need > c.gpus_per_node && need % c.gpus_per_node != 0) {
        o.never_fits = "";  // takes whole nodes: rounded up
      }
      if (!o.never_fits.empty()) {
        js_[i].state = State::never;
        continue;
      }
      push(jobs[i].submit_s, Ev::submit, static_cast<int>(i));
    }
    r_.services.resize(services.size());
    for (std::size_t s = 0; s < services.size(); ++s) {
      r_.services[s].name = services[s].name;
      r_.services[s].tenant = services[s].tenant;
      r_.services[s].measured = services[s].measured;
    }
    for (double t = 0; t < c.span_s; t += kHour) push(t, Ev::hour, static_cast<int>(t / kHour));
    if (c.node_failure_rate_per_s > 0) {
      std::mt19937_64 rng(c.seed);
      std::exponential_distribution<double> gap(c.node_failure_rate_per_s);
      for (int n = 0; n < nodes(); ++n) {
        for (double t = gap(rng); t < c.span_s; t += c.repair_s + gap(rng)) push(t, Ev::failure, n);
      }
    }
    r_.hours.resize(static_cast<std::size_t>(std::ceil(c.span_s / kHour - kEps)));
  }

  ScheduleResult run() {
    while (!queue_.empty()) {
      const Event e = queue_.top();
      queue_.pop();
      if (e.t >= c_.span_s) break;
      // A finish or checkpoint of an allocation that has since changed is stale: skipped without a pass.
      if ((e.kind == Ev::finish || e.kind == Ev::checkpoint) &&
          (e.gen != js_[e.id].gen || js_[e.id].state != State::running)) {
        continue;
      }
      if (e.kind == Ev::time_limit && (e.gen != js_[e.id].limit_gen || js_[e.id].state != State::running)) continue;
      advance(e.t);
      ++r_.events;
      switch (e.kind) {
        case Ev::submit: js_[e.id].state = State::pending; break;
        case Ev::finish:
          if (e.gen == js_[e.id].gen && js_[e.id].state == State::running) finish(e.id);
          break;
        case Ev::checkpoint:
          if (e.gen == js_[e.id].gen && js_[e.id].state == State::running) {
            js_[e.id].progress_ckpt = js_[e.id].progress;
            push(now_ + jobs_[e.id].checkpoint_s, Ev::checkpoint, e.id, js_[e.id].gen);
          }
          break;
        case Ev::hour: hour_ = e.id; break;
        case Ev::failure: fail_node(e.id); break;
        case Ev::repair: node_up_[e.id] = true; break;
        case Ev::time_limit: time_limit(e.id); break;
      }
      schedule(e.kind == Ev::hour);
      if (e.kind == Ev::hour) record_services();
      retime();
    }
    advance(c_.span_s);
    return finish_result();
  }

 private:
  [[nodiscard]] int nodes() const { return (c_.gpus + c_.gpus_per_node - 1) / c_.gpus_per_node; }
  [[nodiscard]] int node_of(int g) const { return g / c_.gpus_per_node; }

  void push(double t, Ev k, int id, std::uint64_t gen = 0) { queue_.push({t, seq_++, k, id, gen}); }

  // ---- Time and accounting ----

  /// GPU board power of GPU g now.
  [[nodiscard]] double gpu_power(int g) const {
    double w = c_.gpu_idle_w;
    if (owner_[g] >= 0 && js_[owner_[g]].state == State::running && now_ >= js_[owner_[g]].run_since) {
      w = jobs_[owner_[g]].power_per_gpu_w;
    }
    if (svc_[g] >= 0) {
      const auto& s = services_[svc_[g]];
      w = std::max(w, c_.gpu_idle_w + busy_[svc_[g]] * (s.power_per_gpu_busy_w - c_.gpu_idle_w));
    }
    return w;
  }

  void advance(double t) {
    const double dt = t - now_;
    if (dt > 0) {
      // Power is constant between events; energy and the hour's statistics integrate it.
      double gpu_w = 0;
      int allocated = 0;
      double busy = 0;
      int up_nodes = 0;
      for (int n = 0; n < nodes(); ++n) up_nodes += node_up_[n] ? 1 : 0;
      for (int g = 0; g < c_.gpus; ++g) {
        const double w = gpu_power(g);
        gpu_w += w;
        const int j = owner_[g];
        const bool held = j >= 0 || svc_[g] >= 0;
        allocated += held ? 1 : 0;
        double b = 0;
        if (j >= 0 && js_[j].state == State::running && now_ >= js_[j].run_since) b = 1;
        if (svc_[g] >= 0) b = std::max(b, busy_[svc_[g]]);
        busy += b;
        const double facility_j = w * c_.pue * dt;
        if (j >= 0) {
          r_.jobs[j].energy_j += facility_j;
          r_.jobs[j].gpu_hours += dt / kHour;
        } else if (svc_[g] >= 0) {
          r_.services[svc_[g]].energy_j += facility_j;
          r_.services[svc_[g]].gpu_hours += dt / kHour;
        }
        if (j >= 0 && svc_[g] >= 0) r_.services[svc_[g]].gpu_hours += dt / kHour;  // shared: both hold it
      }
      const double it_w = gpu_w + up_nodes * c_.node_base_w + c_.fabric_w;
      const double facility_w = it_w * c_.pue;
      // Split [now_, t) at hour boundaries.
      double from = now_;
      while (from < t - kEps) {
        const int h = std::min(static_cast<int>(from / kHour), static_cast<int>(r_.hours.size()) - 1);
        const double to = std::min(t, (h + 1) * kHour);
        const double span = to - from;
        auto& H = r_.hours[h];
        H.energy_kwh += facility_w * span / 3.6e6;
        H.peak_facility_kw = std::max(H.peak_facility_kw, facility_w / 1e3);
        H.allocated_fraction += allocated * span / (kHour * c_.gpus);
        H.busy_fraction += busy * span / (kHour * c_.gpus);
        from = to;
      }
      // Free GPUs stranded in partly used nodes, time-weighted.
      int free_total = 0, stranded = 0;
      for (int n = 0; n < nodes(); ++n) {
        if (!node_up_[n]) continue;
        int free = 0, used = 0;
        for (int g = n * c_.gpus_per_node; g < std::min(c_.gpus, (n + 1) * c_.gpus_per_node); ++g) {
          (owner_[g] < 0 && svc_[g] < 0 ? free : used) += 1;
        }
        free_total += free;
        if (used > 0) stranded += free;
      }
      if (free_total > 0) frag_ += dt * stranded / free_total;
      for (std::size_t j = 0; j < jobs_.size(); ++j) {
        auto& s = js_[j];
        if (s.state == State::pending) r_.jobs[j].queued_s += dt;
        if (s.state != State::running) continue;
        const double from_t = std::max(now_, s.run_since);
        if (t > from_t) s.progress = std::min(jobs_[j].work_s, s.progress + s.rate * (t - from_t));
      }
    }
    now_ = t;
  }

  // ---- Placement ----

  [[nodiscard]] bool gpu_free(int g) const { return owner_[g] < 0 && svc_[g] < 0 && node_up_[node_of(g)]; }

  /// `count` free GPUs for a job: whole free nodes first (a gang under as few switches as possible, the nodes
  /// consecutive where they can be), then the fullest partly free nodes. Under isolation: nodes, only whole
  /// free nodes. Empty when they are not there.
  /// `allowed`: the nodes a job's partition holds (nullptr: every node).
  [[nodiscard]] std::vector<int> find_gpus(int count, int service = -1, const std::vector<bool>* allowed = nullptr) const {
    std::vector<int> whole, partial_nodes;
    for (int n = 0; n < nodes(); ++n) {
      if (!node_up_[n] || (allowed != nullptr && !(*allowed)[static_cast<std::size_t>(n)])) continue;
      int free = 0, mine = 0, other = 0;
      const int lo = n * c_.gpus_per_node, hi = std::min(c_.gpus, lo + c_.gpus_per_node);
      for (int g = lo; g < hi; ++g) {
        if (gpu_free(g)) {
          ++free;
        } else if (service >= 0 && svc_[g] == service && owner_[g] < 0) {
          ++mine;
        } else {
          ++other;
        }
      }
      if (free == hi - lo) {
        whole.push_back(n);
      } else if (free > 0 && (c_.isolation != Isolation::nodes || (other == 0 && mine > 0))) {
        partial_nodes.push_back(n);
      }
    }
    std::vector<int> out;
    const auto take_node = [&](int n) {
      const int lo = n * c_.gpus_per_node, hi = std::min(c_.gpus, lo + c_.gpus_per_node);
      for (int g = lo; g < hi && static_cast<int>(out.size()) < count; ++g) {
        if (gpu_free(g)) out.push_back(g);
      }
    };
    // A replica (or a small job) stays within one node: the fullest partly used node that has room.
    if (count <= c_.gpus_per_node) {
      int best = -1, best_free = 1 << 30;
      for (int n : partial_nodes) {
        int free = 0;
        for (int g = n * c_.gpus_per_node; g < std::min(c_.gpus, (n + 1) * c_.gpus_per_node); ++g) free += gpu_free(g);
        if (free >= count && free < best_free) best = n, best_free = free;
      }
      if (best >= 0) {
        take_node(best);
        return out;
      }
      if (!whole.empty()) {
        take_node(whole.front());
        return out;
      }
      return {};
    }
    // A gang: a run of consecutive whole nodes if there is one, else any whole nodes, then partial ones.
    const int need_nodes = (count + c_.gpus_per_node - 1) / c_.gpus_per_node;
    for (std::size_t i = 0; i + need_nodes <= whole.size(); ++i) {
      if (whole[i + need_nodes - 1] - whole[i] == need_nodes - 1) {
        for (int k = 0; k < need_nodes; ++k) take_node(whole[i + k]);
        return out;
      }
    }
    for (int n : whole) take_node(n);
    if (c_.isolation != Isolation::nodes) {
      for (int n : partial_nodes) take_node(n);
    }
    if (static_cast<int>(out.size()) < count) return {};
    return out;
  }

  [[nodiscard]] int free_count() const {
    int f = 0;
    for (int g = 0; g < c_.gpus; ++g) f += gpu_free(g);
    return f;
  }

  /// Free GPUs on the nodes of job j's partition.
  [[nodiscard]] int free_count(int j) const {
    int f = 0;
    for (int g = 0; g < c_.gpus; ++g) f += gpu_free(g) && in_partition(j, g);
    return f;
  }

  [[nodiscard]] bool in_partition(int j, int g) const { return node_ok_[j][static_cast<std::size_t>(node_of(g))]; }

  /// GPUs job v holds on the nodes of job j's partition.
  [[nodiscard]] int held_in_partition(int v, int j) const {
    int n = 0;
    for (int g : js_[v].gpus) n += in_partition(j, g);
    return n;
  }

  void assign(int j, std::vector<int> gpus, int size_index, bool restart) {
    auto& s = js_[j];
    const bool was_running = s.state == State::running;
    if (was_running) close_interval(j);
    for (int g : s.gpus) owner_[g] = -1;
    s.gpus = std::move(gpus);
    for (int g : s.gpus) owner_[g] = j;
    s.size_index = size_index;
    if (!was_running || restart) {
      s.run_since = now_ + jobs_[j].restart_s;
      ++s.gen;
      push(s.run_since + jobs_[j].checkpoint_s, Ev::checkpoint, j, s.gen);
      // The partition's clock starts at each (re)start, a resize included (a new allocation).
      ++s.limit_gen;
      if (jobs_[j].max_run_s > 0) push(now_ + jobs_[j].max_run_s, Ev::time_limit, j, s.limit_gen);
    }
    s.state = State::running;
    s.alloc_since = now_;
    if (!r_.jobs[j].started_s) r_.jobs[j].started_s = now_;
    // A job placed on GPUs that a replica already holds (shared isolation) must fit beside it in memory.
    check_memory_job(j);
  }

  void close_interval(int j) {
    const auto& s = js_[j];
    if (s.gpus.empty() || now_ <= s.alloc_since) return;
    r_.intervals.push_back({jobs_[j].name, false, false, s.alloc_since, now_, *std::min_element(s.gpus.begin(), s.gpus.end()),
                            static_cast<int>(s.gpus.size())});
  }

  void release(int j, State next) {
    auto& s = js_[j];
    close_interval(j);
    for (int g : s.gpus) owner_[g] = -1;
    s.gpus.clear();
    s.state = next;
    s.rate = 0;
    ++s.gen;
    ++s.limit_gen;
  }

  /// A run reached its partition's max_time: it checkpoints (Slurm's --signal before the limit, Megatron's
  /// --exit-duration-in-mins) and is requeued.
  void time_limit(int j) {
    js_[j].progress_ckpt = js_[j].progress;
    ++r_.jobs[j].time_limits;
    release(j, State::pending);
  }

  /// Stops a running job: it checkpoints first (nothing lost) unless `lost` says it failed.
  void stop(int j, bool failed) {
    auto& s = js_[j];
    if (failed) {
      r_.jobs[j].lost_work_s += s.progress - s.progress_ckpt;
      s.progress = s.progress_ckpt;
      ++r_.jobs[j].failures;
    } else {
      s.progress_ckpt = s.progress;
      ++r_.jobs[j].preemptions;
    }
    release(j, State::pending);
  }

  void finish(int j) {
    release(j, State::done);
    js_[j].progress = jobs_[j].work_s;
    r_.jobs[j].finished_s = now_;
  }

  void fail_node(int n) {
    ++r_.node_failures;
    node_up_[n] = false;
    push(now_ + c_.repair_s, Ev::repair, n);
    for (int g = n * c_.gpus_per_node; g < std::min(c_.gpus, (n + 1) * c_.gpus_per_node); ++g) {
      if (owner_[g] >= 0 && js_[owner_[g]].state == State::running) stop(owner_[g], true);
      if (svc_[g] >= 0) drop_replica_on(g);
    }
  }

  void drop_replica_on(int g) {
    const int s = svc_[g];
    auto& reps = replicas_[s];
    for (std::size_t i = 0; i < reps.size(); ++i) {
      if (std::find(reps[i].gpus.begin(), reps[i].gpus.end(), g) != reps[i].gpus.end()) {
        remove_replica(s, i);
        return;
      }
    }
  }

  void remove_replica(int s, std::size_t i) {
    auto& rep = replicas_[s][i];
    if (now_ > rep.since) {
      r_.intervals.push_back({services_[s].name, true, rep.colocated, rep.since, now_,
                              *std::min_element(rep.gpus.begin(), rep.gpus.end()), static_cast<int>(rep.gpus.size())});
    }
    for (int g : rep.gpus) svc_[g] = -1;
    replicas_[s].erase(replicas_[s].begin() + static_cast<std::ptrdiff_t>(i));
  }

  /// A newcomer that does not fit beside what already holds its GPUs is killed for out of memory.
  void check_memory_job(int j) {
    for (int g : js_[j].gpus) {
      if (svc_[g] < 0) continue;
      const double need = jobs_[j].memory_per_gpu + services_[svc_[g]].memory_per_gpu;
      if (jobs_[j].memory_per_gpu > 0 && need > c_.gpu_memory) {
        ++r_.jobs[j].oom_kills;
        warn_oom(jobs_[j].name, services_[svc_[g]].name, jobs_[j].memory_per_gpu, services_[svc_[g]].memory_per_gpu);
        stop(j, true);
        return;
      }
    }
  }

  void warn_oom(const std::string& killed, const std::string& holder, double a, double b) {
    if (oom_warned_.insert(killed).second) {
      r_.warnings.push_back(killed + " was killed for out of memory on GPUs shared with " + holder + ": " +
                            std::to_string(static_cast<long long>(a / 1e9)) + " GB + " +
                            std::to_string(static_cast<long long>(b / 1e9)) + " GB > " +
                            std::to_string(static_cast<long long>(c_.gpu_memory / 1e9)) + " GB per GPU");
    }
  }

  // ---- Services ----

  [[nodiscard]] int wanted(int s) const {
    const auto& m = services_[s];
    const double rate = m.rate[static_cast<std::size_t>(hour_ % 24)];
    const int want = rate > 0 ? m.replicas_for(rate) : 0;
    return std::clamp(want, m.min_replicas, m.max_replicas);
  }

  /// Makes room for a replica of `s` by shrinking or preempting lower-priority jobs; true when it did.
  bool make_room(int s, int gpus) {
    const auto& m = services_[s];
    // Shrink elastic jobs of lower priority first (tidal), then preempt the lowest priority.
    std::vector<int> order;
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      if (js_[j].state == State::running && jobs_[j].priority < m.priority) order.push_back(static_cast<int>(j));
    }
    std::sort(order.begin(), order.end(), [&](int a, int b) { return jobs_[a].priority < jobs_[b].priority; });
    for (int j : order) {
      auto& st = js_[j];
      if (c_.policy == Policy::tidal && jobs_[j].elastic() && st.size_index > 0) {
        // Shrink to the largest size that leaves room.
        const int have = static_cast<int>(st.gpus.size());
        for (int k = st.size_index - 1; k >= 0; --k) {
          if (have - jobs_[j].sizes[k] + free_count() >= gpus) {
            shrink(j, k);
            ++r_.jobs[j].resizes;
            return true;
          }
        }
      }
    }
    if (!c_.preemption) return false;
    for (int j : order) {
      if (static_cast<int>(js_[j].gpus.size()) + free_count() >= gpus) {
        stop(j, false);
        return true;
      }
    }
    return false;
  }

  void shrink(int j, int k) {
    auto& st = js_[j];
    // Keep whole nodes from the front of its allocation (a checkpoint, then a restart on fewer GPUs).
    std::vector<int> keep(st.gpus.begin(), st.gpus.begin() + jobs_[j].sizes[k]);
    st.progress_ckpt = st.progress;
    assign(j, std::move(keep), k, true);
  }

  /// A training job's GPUs without a replica yet, for co-location (shared isolation).
  [[nodiscard]] std::vector<int> find_shared(int s) const {
    const int need = services_[s].gpus_per_replica;
    for (int n = 0; n < nodes(); ++n) {
      if (!node_up_[n]) continue;
      std::vector<int> out;
      for (int g = n * c_.gpus_per_node; g < std::min(c_.gpus, (n + 1) * c_.gpus_per_node); ++g) {
        if (svc_[g] < 0 && owner_[g] >= 0 && jobs_[owner_[g]].kind == JobKind::training) out.push_back(g);
        if (static_cast<int>(out.size()) == need) return out;
      }
    }
    return {};
  }

  void place_services() {
    std::vector<int> order(services_.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return services_[a].priority > services_[b].priority; });
    for (int s : order) {
      const int want = wanted(s);
      auto& reps = replicas_[s];
      // Scale in: co-located replicas go first.
      while (static_cast<int>(reps.size()) > want) {
        std::size_t victim = reps.size() - 1;
        for (std::size_t i = 0; i < reps.size(); ++i) {
          if (reps[i].colocated) victim = i;
        }
        remove_replica(s, victim);
      }
      // Scale out.
      const int gpr = services_[s].gpus_per_replica;
      int attempts = 0;
      while (static_cast<int>(reps.size()) < want && attempts++ < 4 * want + 8) {
        std::vector<int> gpus = find_gpus(gpr, s);
        bool colocated = false;
        if (gpus.empty() && (c_.policy == Policy::priority || c_.policy == Policy::tidal) && !shares_gpus(c_.isolation)) {
          if (make_room(s, gpr)) continue;
        }
        if (gpus.empty() && shares_gpus(c_.isolation)) {
          gpus = find_shared(s);
          colocated = !gpus.empty();
          if (colocated) {
            const int j = owner_[gpus.front()];
            if (jobs_[j].memory_per_gpu > 0 &&
                jobs_[j].memory_per_gpu + services_[s].memory_per_gpu > c_.gpu_memory) {
              // The replica's engine allocates last and is killed; the training job keeps running.
              ++r_.services[s].oom_kills;
              warn_oom(services_[s].name, jobs_[j].name, services_[s].memory_per_gpu, jobs_[j].memory_per_gpu);
              break;
            }
          }
        }
        if (gpus.empty()) break;
        for (int g : gpus) svc_[g] = s;
        reps.push_back({std::move(gpus), colocated, now_});
        if (colocated) r_.services[s].colocation = services_[s].colocation.mechanism;
      }
    }
  }

  void record_services() {
    if (hour_ >= static_cast<int>(r_.hours.size())) return;
    for (std::size_t s = 0; s < services_.size(); ++s) {
      const auto& m = services_[s];
      ServiceHour h;
      h.rate = m.rate[static_cast<std::size_t>(hour_ % 24)];
      h.wanted = wanted(static_cast<int>(s));
      h.replicas = static_cast<int>(replicas_[s].size());
      for (const auto& rep : replicas_[s]) h.colocated += rep.colocated ? 1 : 0;
      if (h.rate <= 0) {
        h.outcome = {1.0, std::nullopt, std::nullopt, 0.0, std::nullopt};
      } else if (h.replicas == 0) {
        h.outcome = {0.0, std::nullopt, std::nullopt, 0.0, std::nullopt};
      } else {
        const double per = h.rate / h.replicas;
        const int alone = h.replicas - h.colocated;
        HourService a = alone > 0 ? m.evaluate(per, 1.0) : HourService{};
        HourService b = h.colocated > 0 ? m.evaluate(per, m.colocation.replica_slowdown) : HourService{};
        const double wa = static_cast<double>(alone) / h.replicas, wb = 1.0 - wa;
        h.outcome.attainment = wa * a.attainment + wb * b.attainment;
        const auto worst = [](std::optional<double> x, std::optional<double> y) {
          if (!x) return y;
          if (!y) return x;
          return std::optional<double>(std::max(*x, *y));
        };
        h.outcome.ttft_p99_s = worst(alone > 0 ? a.ttft_p99_s : std::nullopt, h.colocated > 0 ? b.ttft_p99_s : std::nullopt);
        h.outcome.tpot_p99_s = worst(alone > 0 ? a.tpot_p99_s : std::nullopt, h.colocated > 0 ? b.tpot_p99_s : std::nullopt);
        h.outcome.latency_p99_s =
            worst(alone > 0 ? a.latency_p99_s : std::nullopt, h.colocated > 0 ? b.latency_p99_s : std::nullopt);
        h.outcome.busy = wa * a.busy + wb * b.busy;
        busy_[s] = h.outcome.busy;
      }
      if (h.replicas == 0) busy_[s] = 0;
      r_.services[s].hours.push_back(h);
    }
  }

  // ---- Jobs ----

  /// GPUs job j's tenant may still take under its quota, the GPUs job j holds now counted as free (no limit:
  /// the cluster's).
  [[nodiscard]] int quota_left(int j) const {
    const auto q = c_.quotas.find(jobs_[j].tenant);
    if (q == c_.quotas.end()) return c_.gpus;
    int held = 0;
    for (std::size_t v = 0; v < jobs_.size(); ++v) {
      if (static_cast<int>(v) != j && js_[v].state == State::running && jobs_[v].tenant == jobs_[j].tenant) {
        held += static_cast<int>(js_[v].gpus.size());
      }
    }
    return q->second - held;
  }

  /// The largest size of job j that fits in the free GPUs now, and within its tenant's quota (-1: none), and the
  /// GPUs.
  [[nodiscard]] std::pair<int, std::vector<int>> fit(int j) const {
    const auto& sizes = jobs_[j].sizes;
    const int quota = quota_left(j);
    for (int k = static_cast<int>(sizes.size()) - 1; k >= 0; --k) {
      if (sizes[k] > quota) continue;
      auto g = find_gpus(sizes[k], -1, &node_ok_[j]);
      if (!g.empty()) return {k, std::move(g)};
    }
    return {-1, {}};
  }

  [[nodiscard]] double remaining_s(int j, int k) const {
    return (jobs_[j].work_s - js_[j].progress) / jobs_[j].speed[k] + jobs_[j].restart_s;
  }

  /// The earliest time `need` GPUs are free, from the running jobs' expected finishes, and the GPUs left over
  /// then (EASY backfill's shadow time and extra nodes).
  /// Counted on the nodes of job `head`'s partition.
  [[nodiscard]] std::pair<double, int> shadow(int need, int head) const {
    std::vector<std::pair<double, int>> ends;
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      const auto& s = js_[j];
      if (s.state != State::running) continue;
      const int held = held_in_partition(static_cast<int>(j), head);
      if (held == 0) continue;
      const double rate = std::max(s.rate, 1e-12);
      const double end = std::max(now_, s.run_since) + (jobs_[j].work_s - s.progress) / rate;
      ends.push_back({end, held});
    }
    std::sort(ends.begin(), ends.end());
    int free = free_count(head);
    for (const auto& [t, n] : ends) {
      free += n;
      if (free >= need) return {t, free - need};
    }
    return {1e300, 0};
  }

  void schedule(bool hour_tick) {
    place_services();
    std::vector<int> pending;
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      if (js_[j].state == State::pending) pending.push_back(static_cast<int>(j));
    }
    const bool by_priority = c_.policy == Policy::priority || c_.policy == Policy::tidal;
    std::stable_sort(pending.begin(), pending.end(), [&](int a, int b) {
      if (jobs_[a].tier != jobs_[b].tier) return jobs_[a].tier > jobs_[b].tier;  // a partition's PriorityTier
      if (by_priority && jobs_[a].priority != jobs_[b].priority) return jobs_[a].priority > jobs_[b].priority;
      return jobs_[a].submit_s < jobs_[b].submit_s;
    });
    // Heads that wait, by partition ("": jobs without one, on every node). fifo: a waiting head blocks the jobs of
    // its partition (and one without a partition blocks all); backfill: each partition's head holds a reservation
    // (shadow time, extra GPUs) that later jobs of that partition respect, and jobs without a partition respect
    // every one. Without partitions this is one head for the whole cluster.
    std::set<std::string> blocked;
    std::map<std::string, std::pair<double, int>> reservations;
    for (int j : pending) {
      // Over its tenant's quota a job waits for its tenant's own jobs to end, as Kueue holds a workload it cannot
      // admit; it neither preempts nor reserves GPUs.
      if (jobs_[j].sizes.front() > quota_left(j)) continue;
      const std::string& part = jobs_[j].partition;
      if (blocked.contains("") || blocked.contains(part)) continue;
      std::vector<std::pair<double, int>*> held;
      for (auto& [p, r] : reservations) {
        if (part.empty() || p.empty() || p == part) held.push_back(&r);
      }
      auto [k, gpus] = fit(j);
      if (!held.empty()) {
        // Backfill: only what ends before the heads' reservations, or fits in the GPUs they leave spare.
        if (k < 0) continue;
        const int n = jobs_[j].sizes[k];
        const bool ends_before = std::all_of(held.begin(), held.end(), [&](const auto* r) {
          return now_ + remaining_s(j, k) <= r->first + kEps;
        });
        if (ends_before) {
          assign(j, std::move(gpus), k, true);
        } else if (std::all_of(held.begin(), held.end(), [&](const auto* r) { return n <= r->second; })) {
          for (auto* r : held) r->second -= n;
          assign(j, std::move(gpus), k, true);
        }
        continue;
      }
      if (k >= 0) {
        assign(j, std::move(gpus), k, true);
        continue;
      }
      if (by_priority && c_.preemption) {
        // Preempt lower-priority running jobs, lowest first, while that makes room.
        // Only jobs holding GPUs on its partition's nodes make room, and only those GPUs count.
        std::vector<int> victims;
        int room = free_count(j);
        std::vector<int> running;
        for (std::size_t v = 0; v < jobs_.size(); ++v) {
          if (js_[v].state == State::running && jobs_[v].priority < jobs_[j].priority &&
              held_in_partition(static_cast<int>(v), j) > 0) {
            running.push_back(static_cast<int>(v));
          }
        }
        std::sort(running.begin(), running.end(), [&](int a, int b) { return jobs_[a].priority < jobs_[b].priority; });
        for (int v : running) {
          if (room >= jobs_[j].sizes.front()) break;
          victims.push_back(v);
          room += held_in_partition(v, j);
        }
        if (room >= jobs_[j].sizes.front()) {
          for (int v : victims) stop(v, false);
          auto [k2, g2] = fit(j);
          if (k2 >= 0) assign(j, std::move(g2), k2, true);
        }
        continue;
      }
      if (c_.policy == Policy::fifo) blocked.insert(part);
      if (c_.policy == Policy::backfill) reservations[part] = shadow(jobs_[j].sizes.front(), j);
    }
    // Tidal: at each hour, elastic jobs grow into GPUs nobody waits for (a checkpoint and a restart).
    if (c_.policy == Policy::tidal && hour_tick) {
      bool waiting = false;
      for (std::size_t j = 0; j < jobs_.size(); ++j) waiting = waiting || js_[j].state == State::pending;
      if (!waiting) {
        for (std::size_t j = 0; j < jobs_.size(); ++j) {
          auto& s = js_[j];
          if (s.state != State::running || !jobs_[j].elastic()) continue;
          for (int k = static_cast<int>(jobs_[j].sizes.size()) - 1; k > s.size_index; --k) {
            if (jobs_[j].sizes[k] > quota_left(static_cast<int>(j))) continue;
            const int extra = jobs_[j].sizes[k] - static_cast<int>(s.gpus.size());
            auto more = find_gpus(extra, -1, &node_ok_[j]);
            if (more.empty()) continue;
            std::vector<int> all = s.gpus;
            all.insert(all.end(), more.begin(), more.end());
            s.progress_ckpt = s.progress;
            assign(static_cast<int>(j), std::move(all), k, true);
            ++r_.jobs[j].resizes;
            break;
          }
        }
      }
    }
  }

  /// Every running job's rate now, and its finish event.
  void retime() {
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      auto& s = js_[j];
      if (s.state != State::running) continue;
      double rate = jobs_[j].speed[s.size_index];
      // A gang runs at its slowest GPU: the most loaded co-located replica's share.
      double share = 1.0;
      for (int g : s.gpus) {
        if (svc_[g] < 0) continue;
        const auto& m = services_[svc_[g]];
        share = std::min(share, 1.0 - busy_[svc_[g]] * (1.0 - m.colocation.training_rate));
      }
      rate *= share;
      s.rate = rate;
      ++s.gen;
      push(s.run_since + jobs_[j].checkpoint_s * std::ceil((std::max(now_, s.run_since) - s.run_since) /
                                                            jobs_[j].checkpoint_s + kEps),
           Ev::checkpoint, static_cast<int>(j), s.gen);
      const double left = jobs_[j].work_s - s.progress;
      if (rate > 0) push(std::max(now_, s.run_since) + left / rate, Ev::finish, static_cast<int>(j), s.gen);
    }
  }

  ScheduleResult finish_result() {
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      if (js_[j].state == State::running) close_interval(static_cast<int>(j));
      r_.jobs[j].progress = jobs_[j].work_s > 0 ? js_[j].progress / jobs_[j].work_s : 1.0;
    }
    for (std::size_t s = 0; s < services_.size(); ++s) {
      while (!replicas_[s].empty()) remove_replica(static_cast<int>(s), replicas_[s].size() - 1);
      auto& o = r_.services[s];
      double requests = 0, met = 0;
      for (const auto& h : o.hours) {
        requests += h.rate * kHour;
        met += h.rate * kHour * h.outcome.attainment;
        if (h.outcome.ttft_p99_s) o.ttft_p99_s = std::max(o.ttft_p99_s.value_or(0.0), *h.outcome.ttft_p99_s);
        if (h.outcome.tpot_p99_s) o.tpot_p99_s = std::max(o.tpot_p99_s.value_or(0.0), *h.outcome.tpot_p99_s);
        if (h.outcome.latency_p99_s) o.latency_p99_s = std::max(o.latency_p99_s.value_or(0.0), *h.outcome.latency_p99_s);
      }
      o.slo_attainment = requests > 0 ? met / requests : 1.0;
    }
    double alloc = 0, busy = 0, energy = 0;
    for (auto& h : r_.hours) {
      alloc += h.allocated_fraction;
      busy += h.busy_fraction;
      energy += h.energy_kwh;
      r_.peak_facility_kw = std::max(r_.peak_facility_kw, h.peak_facility_kw);
      h.over_circuit = c_.circuit_w && h.peak_facility_kw * 1e3 > *c_.circuit_w;
      r_.over_circuit_hours += h.over_circuit ? 1 : 0;
    }
    // The last hour may be partial: weight by the span.
    r_.gpu_allocated_fraction = alloc * kHour / c_.span_s;
    r_.gpu_busy_fraction = busy * kHour / c_.span_s;
    r_.energy_kwh = energy;
    r_.fragmentation = frag_ / c_.span_s;
    // Cost: every fixed cost spread over GPU-seconds; each job and service pays for the GPU-time it held and
    // the electricity its GPUs drew (with PUE); the rest (idle GPUs, nodes' and fabric's own draw) is idle.
    const double fixed_per_gpu_hour = c_.fixed_usd_per_s * kHour / c_.gpus;
    r_.tco_usd = c_.fixed_usd_per_s * c_.span_s + energy * 3.6e6 * c_.usd_per_joule;
    double charged = 0;
    for (auto& o : r_.jobs) {
      o.cost_usd = o.gpu_hours * fixed_per_gpu_hour + o.energy_j * c_.usd_per_joule;
      r_.per_tenant_usd[o.tenant] += o.cost_usd;
      charged += o.cost_usd;
    }
    for (auto& o : r_.services) {
      o.cost_usd = o.gpu_hours * fixed_per_gpu_hour + o.energy_j * c_.usd_per_joule;
      r_.per_tenant_usd[o.tenant] += o.cost_usd;
      charged += o.cost_usd;
    }
    r_.idle_usd = std::max(0.0, r_.tco_usd - charged);
    return std::move(r_);
  }

  const ClusterModel& c_;
  const std::vector<WorkJob>& jobs_;
  const std::vector<ServiceModel>& services_;
  std::vector<int> owner_, svc_;
  std::vector<bool> node_up_;
  std::vector<JobState> js_;
  std::vector<std::vector<bool>> node_ok_;  ///< per job, the nodes its partition holds
  std::vector<std::vector<Replica>> replicas_;
  std::vector<double> busy_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue_;
  std::uint64_t seq_ = 0;
  double now_ = 0, frag_ = 0;
  int hour_ = 0;
  std::set<std::string> oom_warned_;
  ScheduleResult r_;
};

}  // namespace

ScheduleResult simulate_cluster(const ClusterModel& cluster, const std::vector<WorkJob>& jobs,
                                const std::vector<ServiceModel>& services) {
  return Simulation(cluster, jobs, services).run();
}

}  // namespace cs
