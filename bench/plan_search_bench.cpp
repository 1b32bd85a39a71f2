// Benchmark of the plan search (docs/performance.md): screens every valid plan of a scenario with
// `parallelism: search` and replays the best K, printing how many plans were screened and how long each
// stage took. Usage: bench_plan_search [SCENARIO] [TOP] [SAMPLE] [THREADS]
#include <fmt/format.h>

#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "sim/search/plan_search.hpp"

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : CS_SOURCE_DIR "/scenarios/sweeps/gpt3-175b-1024xh100-plan.yaml";
  cs::SearchOptions opt;
  opt.top = argc > 2 ? std::atoi(argv[2]) : 10;
  opt.sample = argc > 3 ? std::atoi(argv[3]) : 0;
  opt.threads = argc > 4 ? std::atoi(argv[4]) : 2;
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  const auto t0 = std::chrono::steady_clock::now();
  const cs::SearchableScenario sc = cs::load_searchable_scenario(text.str(), path);
  const cs::SearchResult r = cs::search_plans(sc, text.str(), path, opt);
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("scenario            {}\n", sc.scenario.name);
  fmt::print("layouts             {}\n", r.counts.layouts);
  fmt::print("plans enumerated    {} (divide evenly)\n", r.counts.enumerated);
  fmt::print("out of memory       {}\n", r.counts.out_of_memory);
  fmt::print("plans screened      {}\n", r.counts.valid);
  fmt::print("screen              {:.2f} s ({:.0f} plans/s)\n", r.screen_s, r.counts.valid / std::max(1e-9, r.screen_s));
  fmt::print("replayed            {} plans in {:.2f} s on {} threads\n", r.sampled.size(), r.replay_s, opt.threads);
  for (std::size_t i = 0; i < std::min<std::size_t>(5, r.ranked.size()); ++i) {
    fmt::print("screened #{}         {} step {:.3f} s\n", i + 1, cs::describe(r.ranked[i].candidate), r.ranked[i].step_s);
    if (std::getenv("CS_BENCH_DETAIL")) {
      cs::ScreenModel m(sc.scenario);
      const auto e = m.estimate(r.ranked[i].candidate);
      fmt::print("   compute {:.3f} bubble {:.3f} dp {:.3f} opt {:.3f} gather {:.3f}\n", e.compute.seconds(),
                 e.bubble.seconds(), e.dp_exposed.seconds(), e.optimizer.seconds(), e.param_gather.seconds());
    }
  }
  if (!r.replayed.empty()) {
    fmt::print("best                {} step {:.3f} s\n", cs::describe(r.best_replayed().candidate),
               r.best_replayed().result.step.step_time.seconds());
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                     static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  fmt::print("total               {:.2f} s wall, {:.2f} s CPU (load included)\n", total, cpu);
  return 0;
}
