#include "sim/search/fastest_plan.hpp"

#include <algorithm>
#include <vector>

#include "sim/scenario/runner.hpp"
#include "sim/search/plan_space.hpp"
#include "sim/search/screen_model.hpp"

namespace cs {

std::optional<std::string> choose_fastest_plan(Scenario& sc, const std::function<bool(const ParallelPlan&, const Overlap&)>& keep,
                                               int replay) {
  std::vector<std::pair<double, PlanCandidate>> ranked;
  {
    ScreenModel screen(sc);
    PlanSpaceCounts counts;
    enumerate_plans(sc, counts, [&](const PlanCandidate& c) {
      if (!keep || keep(c.plan, c.overlap)) ranked.emplace_back(screen.estimate(c).step.seconds(), c);
    });
  }
  if (ranked.empty()) return std::nullopt;
  const auto head = std::min<std::size_t>(ranked.size(), static_cast<std::size_t>(std::max(1, replay)));
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(head), ranked.end(),
                    [](const auto& a, const auto& b) { return a.first < b.first; });
  // The scenario holds its topology (not copyable): each trial writes its plan into it in turn.
  const TrainingConfig given = sc.training;
  double best_s = 0;
  const PlanCandidate* best = nullptr;
  for (std::size_t i = 0; i < head; ++i) {
    sc.plan = ranked[i].second.plan;
    sc.training = given;
    apply_candidate(ranked[i].second, sc.training);
    const double s = run_scenario(sc).step.step_time.seconds();
    if (!best || s < best_s) {
      best_s = s;
      best = &ranked[i].second;
    }
  }
  sc.plan = best->plan;
  sc.training = given;
  apply_candidate(*best, sc.training);
  return describe(*best);
}

}  // namespace cs
