// Plan search, in two honest stages: every valid plan (plan_space.hpp) is screened with the closed-form
// ScreenModel, then the best `top` by screened step time are replayed in full with run_scenario (the
// event-driven step on the scenario's fabric model), plus an evenly spread sample of the screened ranking,
// so the agreement of the two orders (Spearman's rho, Kendall's tau) is measured on every search.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "sim/scenario/run_result.hpp"
#include "sim/search/plan_space.hpp"
#include "sim/search/screen_model.hpp"
#include "sim/search/search_scenario.hpp"

namespace cs {

struct SearchOptions {
  int top = 10;      ///< plans replayed from the head of the screened ranking (0 with sample 0: screen only)
  int sample = 10;   ///< further plans spread over the ranking, replayed for the rank correlation
  int threads = 0;   ///< screen and replay threads (0: all cores)
  /// Set it (from another thread) to stop the search soon: the screen checks it every 4,096 plans it enumerates
  /// and before each group of plans that share a layer, each replay once per span; search_plans then throws
  /// SearchCancelled.
  const std::atomic<bool>* cancel = nullptr;
  /// Called with (plans replayed, plans to replay) once the screen is done and after each replay, from the
  /// replay threads (never two calls at once).
  std::function<void(std::size_t done, std::size_t total)> progress;
};

/// Thrown by search_plans when its cancel flag was set while it ran.
struct SearchCancelled : std::exception {
  [[nodiscard]] const char* what() const noexcept override { return "plan search cancelled"; }
};

struct ScreenedPlan {
  double step_s = 0;  ///< screened step time
  PlanCandidate candidate;
};

struct ReplayedPlan {
  std::size_t screen_rank = 0;  ///< 0-based position in the screened ranking
  PlanCandidate candidate;
  ScreenEstimate screen;
  RunResult result;
};

struct SearchResult {
  PlanSpaceCounts counts;
  std::vector<ScreenedPlan> ranked;     ///< every valid plan, best screened step time first
  std::vector<ReplayedPlan> replayed;   ///< the top plans, best replayed step time first
  std::vector<ReplayedPlan> sampled;    ///< the correlation sample (top plans included), by screen rank
  double spearman = 0, kendall = 0;
  double screen_s = 0, replay_s = 0;    ///< wall time of the two stages

  [[nodiscard]] const ReplayedPlan& best_replayed() const { return replayed.front(); }
  [[nodiscard]] std::string no_plan_reason() const;
  /// Why the best plan runs, or does not run, a zero-bubble schedule (zb-h1, zb-h2, zb-v): the one it chose, or
  /// what kept them out (no pipeline, too few micro-batches, memory), or how far the best of them fell behind.
  [[nodiscard]] std::string zero_bubble_note() const;
};

/// Searches the plan of `loaded` (a scenario with `parallelism: search`; its own plan is ignored). Each replay
/// thread loads its own copy of the scenario from `yaml_text` (named `name`), so nothing mutable is shared.
[[nodiscard]] SearchResult search_plans(const SearchableScenario& loaded, const std::string& yaml_text,
                                        const std::string& name, const SearchOptions& opt);

/// The largest difference between the replayed step breakdowns of `worse` and `better`, as a sentence:
/// "+0.41 s pipeline bubble and waits (pp16 vs pp8)".
[[nodiscard]] std::string why_slower(const ReplayedPlan& worse, const ReplayedPlan& better);

}  // namespace cs
