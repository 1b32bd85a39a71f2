#include "sim/cli/cmd_plan.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "sim/api/clustersim.hpp"
#include "sim/cli/settings_option.hpp"

namespace cs::cli {

namespace {
struct PlanArgs {
  std::string scenario;
  int top = 10;
  int sample = 10;
  int jobs = 0;
  std::string json;
  std::vector<std::string> set;
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
  add_settings_option(*cmd, a->set);
  cmd->callback([a] {
    const std::string text =
        api::scenario_text({.path = a->scenario, .text = {}, .set = parse_settings(a->set), .profile = {}});
    api::SearchOptions opt;
    opt.top_k = a->top;
    opt.sample = a->sample;
    opt.threads = a->jobs;
    const api::PlanRanking r = api::search_plans(text, a->scenario, opt);
    const Scenario sc = api::load_searchable(text, a->scenario);
    std::ostream& out = a->json == "-" ? std::cerr : std::cout;
    out << fmt::format("plan search: {} on {} GPUs ({})\n", sc.model.name, sc.gpus, sc.profile.provenance.profile);
    out << fmt::format("  layouts {}, plans that divide evenly {}, out of memory {}, screened {} in {:.2f} s "
                       "({:.0f} plans/s)\n",
                       r.layouts, r.enumerated, r.out_of_memory, r.screened, r.screen_s,
                       r.screen_s > 0 ? static_cast<double>(r.screened) / r.screen_s : 0.0);
    if (r.plans.empty()) throw InputError({a->scenario, 0, 0}, "parallelism", "no plan: " + r.no_plan_reason);
    out << fmt::format("  replayed {} plans in {:.2f} s\n\n", r.replayed, r.replay_s);
    out << fmt::format("{:>4} {:>6} {:<64} {:>10} {:>10} {:>6} {:>10}\n", "rank", "screen", "plan", "step",
                       "screened", "MFU", "memory");
    for (std::size_t i = 0; i < r.plans.size(); ++i) {
      const api::RankedPlan& p = r.plans[i];
      out << fmt::format("{:>4} {:>6} {:<64} {:>8.3f} s {:>8.3f} s {:>5.1f}% {:>10}{}\n", i + 1, p.screen_rank,
                         p.description, p.step_s, p.screened_step_s, 100 * p.mfu, gib(p.memory.value()),
                         p.fits_in_memory ? "" : "  OUT OF MEMORY");
    }
    if (const auto& b = r.plans.front().band; b && b->valid()) {
      const double step = r.plans.front().step_s;
      out << fmt::format("\nstep-time {:.0f}% band, the same relative band for every plan: {:+.1f}% / {:+.1f}% "
                         "(basis: {})\n",
                         100 * b->level, 100 * (b->low / step - 1), 100 * (b->high / step - 1), b->basis);
    }
    out << "\nwhy each lost to the one above:\n";
    for (std::size_t i = 1; i < r.plans.size(); ++i) out << fmt::format("  #{}: {}\n", i + 1, r.plans[i].why_lost);
    out << fmt::format("\npipeline schedule: {}\n", r.zero_bubble_note);
    out << fmt::format("\nscreen vs replay over {} plans (top {} and {} spread over the ranking): "
                       "Spearman rho {:.3f}, Kendall tau {:.3f}\n",
                       r.sampled.size(), r.plans.size(), r.sampled.size() - r.plans.size(), r.spearman, r.kendall);
    if (!a->json.empty()) {
      const std::string s = api::ranking_json(r, sc.name).dump(2) + "\n";
      if (a->json == "-") std::cout << s;
      else write_file_atomically(a->json, s);
    }
  });
}

}  // namespace cs::cli
