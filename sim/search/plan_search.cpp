#include "sim/search/plan_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "sim/replay/step_replay.hpp"
#include "sim/scenario/runner.hpp"
#include "sim/search/rank_correlation.hpp"

namespace cs {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Stops a replay from inside: the engine runs spans in order, so a set flag is seen within one span.
class CancelObserver final : public ReplayObserver {
 public:
  explicit CancelObserver(const std::atomic<bool>& flag) : flag_(flag) {}
  void on_span(const Span&) override {
    if (flag_.load(std::memory_order_relaxed)) throw SearchCancelled{};
  }

 private:
  const std::atomic<bool>& flag_;
};

bool cancelled(const SearchOptions& opt) { return opt.cancel != nullptr && opt.cancel->load(std::memory_order_relaxed); }

/// Runs body(state, i) for every i in [0, count) on up to `threads` threads, each with its own state from
/// make_state() (built once per thread). The first exception stops the others after their current item and is
/// rethrown here.
template <class MakeState, class Body>
void on_threads(std::size_t count, int threads, const MakeState& make_state, const Body& body) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex mu;
  const auto work = [&] {
    try {
      auto state = make_state();
      for (std::size_t i = next++; i < count; i = next++) body(state, i);
    } catch (...) {
      const std::lock_guard lock(mu);
      if (!failure) failure = std::current_exception();
      next = count;
    }
  };
  {
    std::vector<std::jthread> pool;
    const int n = std::max(1, std::min<int>(threads, static_cast<int>(count)));
    for (int i = 0; i < n; ++i) pool.emplace_back(work);
  }
  if (failure) std::rethrow_exception(failure);
}

/// A replay thread's own scenario (loaded once) and cancel observer.
struct ReplayWorker {
  ReplayWorker(Scenario s, const std::atomic<bool>* flag) : sc(std::move(s)), base(sc.training) {
    if (flag != nullptr) cancel.emplace(*flag);
  }
  Scenario sc;
  TrainingConfig base;
  std::optional<CancelObserver> cancel;
};

/// Replays `todo` on `threads` threads, each with its own scenario from `own_scenario`.
void replay_all(std::vector<ReplayedPlan>& todo, const std::function<Scenario()>& own_scenario, const SearchOptions& opt,
                int threads) {
  std::mutex mu;
  std::size_t done = 0;
  if (opt.progress) opt.progress(0, todo.size());
  on_threads(todo.size(), threads, [&] { return ReplayWorker(own_scenario(), opt.cancel); },
             [&](ReplayWorker& w, std::size_t i) {
               if (cancelled(opt)) throw SearchCancelled{};
               Scenario& sc = w.sc;
               sc.training = w.base;
               sc.plan = todo[i].candidate.plan;
               apply_candidate(todo[i].candidate, sc.training);
               check_plan({sc.file, 0, 0}, sc.model, sc.plan, sc.training, sc.gpus, sc.topology.node().gpus);
               std::vector<ReplayObserver*> observers;
               if (w.cancel) observers.push_back(&*w.cancel);
               todo[i].result = run_scenario(sc, observers);
               const std::lock_guard lock(mu);
               ++done;
               if (opt.progress) opt.progress(done, todo.size());
             });
}

/// Screens every valid plan into r.ranked (enumeration order) on `threads` threads. Each thread has its own
/// ScreenModel and takes whole groups of plans that share a layer key, so every layer is priced by one thread
/// once; the screened times do not depend on the thread count.
void screen_all(const Scenario& sc, const SearchOptions& opt, int threads, SearchResult& r) {
  std::vector<PlanCandidate> plans;
  enumerate_plans(sc, r.counts, [&](const PlanCandidate& c) {
    if (plans.size() % 4096 == 4095 && cancelled(opt)) throw SearchCancelled{};
    plans.push_back(c);
  });
  std::map<ScreenModel::LayerKey, std::vector<std::size_t>> by_key;
  for (std::size_t i = 0; i < plans.size(); ++i) by_key[ScreenModel::layer_key(plans[i])].push_back(i);
  std::vector<const std::vector<std::size_t>*> groups;
  for (const auto& [key, members] : by_key) groups.push_back(&members);
  std::vector<double> step(plans.size(), 0.0);
  on_threads(groups.size(), threads, [&] { return ScreenModel(sc); }, [&](ScreenModel& screen, std::size_t g) {
    if (cancelled(opt)) throw SearchCancelled{};
    for (const std::size_t i : *groups[g]) step[i] = screen.estimate(plans[i]).step.seconds();
  });
  r.ranked.reserve(plans.size());
  for (std::size_t i = 0; i < plans.size(); ++i) r.ranked.push_back({step[i], std::move(plans[i])});
}

SearchResult search(const Scenario& sc, const std::function<Scenario()>& own_scenario, const SearchOptions& opt);

}  // namespace

std::string SearchResult::no_plan_reason() const {
  if (counts.layouts == 0) return "no layout tp*cp*pp*dp divides the GPUs, the model and the global batch";
  if (counts.valid == 0) {
    return fmt::format("all {} plans that divide evenly run out of memory", counts.enumerated);
  }
  return "no plan replayed";
}

std::string SearchResult::zero_bubble_note() const {
  if (replayed.empty()) return "";
  const ReplayedPlan& best = best_replayed();
  const PipelineSchedule chosen = best.candidate.plan.schedule;
  if (splits_backward(chosen)) {
    return fmt::format("chose {}: its backward's weight gradients fill the pipeline's bubbles", to_string(chosen));
  }
  const auto zero_bubble = [](const PlanCandidate& c) { return splits_backward(c.plan.schedule); };
  for (const ReplayedPlan& p : replayed) {
    if (zero_bubble(p.candidate)) return "no zero-bubble schedule: the best replayed one " + why_slower(p, best);
  }
  const auto it = std::find_if(ranked.begin(), ranked.end(), [&](const ScreenedPlan& p) { return zero_bubble(p.candidate); });
  if (it != ranked.end()) {
    return fmt::format("no zero-bubble schedule: the best of them ({}) screened {:.3f} s against {:.3f} s, outside "
                       "the plans replayed",
                       describe(it->candidate), it->step_s, ranked.front().step_s);
  }
  if (best.candidate.plan.pp == 1) {
    return "no zero-bubble schedule: the best plan has no pipeline (pp 1), and no plan with one fits or divides "
           "with at least 2 pp micro-batches per step";
  }
  return "no zero-bubble schedule: none fits in memory or has at least 2 pp micro-batches per step and one model "
         "chunk per rank";
}

SearchResult search_plans(const SearchableScenario& loaded, const std::string& yaml_text, const std::string& name,
                          const SearchOptions& opt) {
  return search(loaded.scenario, [&] { return load_searchable_scenario(yaml_text, name).scenario; }, opt);
}

namespace {
SearchResult search(const Scenario& sc, const std::function<Scenario()>& own_scenario, const SearchOptions& opt) {
  SearchResult r;
  if (cancelled(opt)) throw SearchCancelled{};
  auto t0 = std::chrono::steady_clock::now();
  const int threads = opt.threads > 0 ? opt.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  screen_all(sc, opt, threads, r);
  std::stable_sort(r.ranked.begin(), r.ranked.end(),
                   [](const ScreenedPlan& a, const ScreenedPlan& b) { return a.step_s < b.step_s; });
  r.screen_s = seconds_since(t0);
  if (r.ranked.empty() || (opt.top <= 0 && opt.sample <= 0)) return r;

  // The head of the ranking, and `sample` more ranks spread evenly over the rest of it.
  const std::size_t n = r.ranked.size();
  const std::size_t top = std::min<std::size_t>(static_cast<std::size_t>(std::max(0, opt.top)), n);
  std::set<std::size_t> ranks;
  for (std::size_t i = 0; i < top; ++i) ranks.insert(i);
  for (int k = 1; k <= opt.sample && n > top; ++k) {
    ranks.insert(top + (n - 1 - top) * static_cast<std::size_t>(k) / static_cast<std::size_t>(opt.sample));
  }
  std::vector<ReplayedPlan> todo;
  ScreenModel screen(sc);
  for (const std::size_t i : ranks) todo.push_back({i, r.ranked[i].candidate, screen.estimate(r.ranked[i].candidate), {}});

  t0 = std::chrono::steady_clock::now();
  replay_all(todo, own_scenario, opt, threads);
  r.replay_s = seconds_since(t0);

  std::vector<double> screened, replayed;
  for (const ReplayedPlan& p : todo) {
    screened.push_back(p.screen.step.seconds());
    replayed.push_back(p.result.step.step_time.seconds());
    if (p.screen_rank < top) r.replayed.push_back(p);
  }
  r.spearman = spearman_rho(screened, replayed);
  r.kendall = kendall_tau(screened, replayed);
  r.sampled = std::move(todo);
  // Plans that do not fit by the replay's own memory check rank after those that do.
  std::stable_sort(r.replayed.begin(), r.replayed.end(), [](const ReplayedPlan& a, const ReplayedPlan& b) {
    if (a.result.fits_in_memory != b.result.fits_in_memory) return a.result.fits_in_memory;
    return a.result.step.step_time < b.result.step.step_time;
  });
  return r;
}
}  // namespace

std::string why_slower(const ReplayedPlan& worse, const ReplayedPlan& better) {
  const StepBreakdown& w = worse.result.step.breakdown;
  const StepBreakdown& b = better.result.step.breakdown;
  const std::pair<const char*, double> parts[] = {
      {"compute (kernels, recompute)", (w.compute - b.compute).seconds()},
      {"exposed TP communication", (w.tp_comm - b.tp_comm).seconds()},
      {"exposed CP communication", (w.cp_comm - b.cp_comm).seconds()},
      {"exposed EP communication", (w.ep_comm - b.ep_comm).seconds()},
      {"waiting for the host (eager launches)", (w.host_wait - b.host_wait).seconds()},
      {"pipeline bubble and waits", (w.pipeline_wait - b.pipeline_wait).seconds()},
      {"exposed DP gradient reduction", (w.dp_comm - b.dp_comm).seconds()},
      {"optimizer step", (w.optimizer - b.optimizer).seconds()},
      {"exposed parameter all-gather", (w.param_gather - b.param_gather).seconds()},
  };
  const auto* most = std::max_element(std::begin(parts), std::end(parts),
                                      [](const auto& x, const auto& y) { return x.second < y.second; });
  const double total = (worse.result.step.step_time - better.result.step.step_time).seconds();
  if (!worse.result.fits_in_memory && better.result.fits_in_memory) return "does not fit in memory in the replay";
  if (total == 0) return fmt::format("ties with the one above ({} vs {})", describe(worse.candidate), describe(better.candidate));
  return fmt::format("+{:.3f} s step: +{:.3f} s {} ({} vs {})", total, most->second, most->first,
                     describe(worse.candidate), describe(better.candidate));
}

}  // namespace cs
