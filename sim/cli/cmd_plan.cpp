#include "sim/cli/cmd_plan.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <memory>

#include "sim/core/atomic_file.hpp"
#include "sim/search/plan_search.hpp"

namespace cs::cli {

namespace {
struct PlanArgs {
  std::string scenario;
  int top = 10;
  int sample = 10;
  int jobs = 0;
  std::string json;
};

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024 * 1024)); }
}  // namespace

void register_plan_command(CLI::App& app) {
  auto a = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan", "Search the parallel plan of a scenario: screen every valid plan, replay the best K in full");
  cmd->add_option("scenario", a->scenario, "Scenario file; its parallelism: section is ignored (or is `search`)")
      ->required();
  cmd->add_option("--top", a->top, "Plans replayed in full from the head of the screened ranking")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--sample", a->sample, "Further plans replayed, spread over the ranking, for the rank correlation")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("-j,--jobs", a->jobs, "Screen and replay threads (default: all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--json", a->json, "Write the ranking as JSON to FILE ('-' for standard output)")->type_name("FILE|-");
  cmd->callback([a] {
    const SearchableScenario loaded = load_searchable_scenario_file(a->scenario);
    std::string text;
    {
      std::ifstream in(a->scenario, std::ios::binary);
      std::ostringstream s;
      s << in.rdbuf();
      text = s.str();
    }
    SearchOptions opt;
    opt.top = a->top;
    opt.sample = a->sample;
    opt.threads = a->jobs;
    const SearchResult r = search_plans(loaded, text, a->scenario, opt);
    std::ostream& out = a->json == "-" ? std::cerr : std::cout;
    const Scenario& sc = loaded.scenario;
    out << fmt::format("plan search: {} on {} GPUs ({})\n", sc.model.name, sc.gpus, sc.profile.provenance.profile);
    out << fmt::format("  layouts {}, plans that divide evenly {}, out of memory {}, screened {} in {:.2f} s "
                       "({:.0f} plans/s)\n",
                       r.counts.layouts, r.counts.enumerated, r.counts.out_of_memory, r.counts.valid, r.screen_s,
                       r.screen_s > 0 ? r.counts.valid / r.screen_s : 0.0);
    if (r.replayed.empty()) throw InputError({a->scenario, 0, 0}, "parallelism", "no plan: " + r.no_plan_reason());
    out << fmt::format("  replayed {} plans in {:.2f} s\n\n", r.sampled.size(), r.replay_s);
    out << fmt::format("{:>4} {:>6} {:<64} {:>10} {:>10} {:>6} {:>10}\n", "rank", "screen", "plan", "step",
                       "screened", "MFU", "memory");
    for (std::size_t i = 0; i < r.replayed.size(); ++i) {
      const ReplayedPlan& p = r.replayed[i];
      out << fmt::format("{:>4} {:>6} {:<64} {:>8.3f} s {:>8.3f} s {:>5.1f}% {:>10}{}\n", i + 1, p.screen_rank + 1,
                         describe(p.candidate), p.result.step.step_time.seconds(), p.screen.step.seconds(),
                         100 * p.result.mfu, gib(p.result.memory.total().value()),
                         p.result.fits_in_memory ? "" : "  OUT OF MEMORY");
    }
    if (const auto& b = r.replayed.front().result.step_band; b && b->valid()) {
      // Every plan of one search shares the band's traits (precision, dense/MoE, GPUs): one relative band.
      const double step = r.replayed.front().result.step.step_time.seconds();
      out << fmt::format("\nstep-time {:.0f}% band, the same relative band for every plan: {:+.1f}% / {:+.1f}% "
                         "(basis: {})\n",
                         100 * b->level, 100 * (b->low / step - 1), 100 * (b->high / step - 1), b->basis);
    }
    out << "\nwhy each lost to the one above:\n";
    for (std::size_t i = 1; i < r.replayed.size(); ++i) {
      out << fmt::format("  #{}: {}\n", i + 1, why_slower(r.replayed[i], r.replayed[i - 1]));
    }
    out << fmt::format("\nscreen vs replay over {} plans (top {} and {} spread over the ranking): "
                       "Spearman rho {:.3f}, Kendall tau {:.3f}\n",
                       r.sampled.size(), r.replayed.size(), r.sampled.size() - r.replayed.size(), r.spearman, r.kendall);
    if (!a->json.empty()) {
      nlohmann::ordered_json j;
      j["scenario"] = sc.name;
      j["counts"] = {{"layouts", r.counts.layouts}, {"enumerated", r.counts.enumerated},
                     {"out_of_memory", r.counts.out_of_memory}, {"screened", r.counts.valid}};
      j["screen_s"] = r.screen_s;
      j["replay_s"] = r.replay_s;
      j["spearman"] = r.spearman;
      j["kendall"] = r.kendall;
      for (const ReplayedPlan& p : r.sampled) {
        nlohmann::ordered_json e = candidate_json(p.candidate);
        e["screen_rank"] = p.screen_rank + 1;
        e["screened_step_time_s"] = p.screen.step.seconds();
        e["step_time_s"] = p.result.step.step_time.seconds();
        if (p.result.step_band && p.result.step_band->valid()) {
          e["step_time_band_s"] = {{"lo", p.result.step_band->low}, {"hi", p.result.step_band->high},
                                   {"level", p.result.step_band->level}, {"basis", p.result.step_band->basis}};
        }
        e["mfu"] = p.result.mfu;
        e["fits_in_memory"] = p.result.fits_in_memory;
        j["replayed"].push_back(std::move(e));
      }
      const std::string s = j.dump(2) + "\n";
      if (a->json == "-") std::cout << s;
      else write_file_atomically(a->json, s);
    }
  });
}

}  // namespace cs::cli
