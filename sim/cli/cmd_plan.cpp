#include "sim/cli/cmd_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
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
  double probe_seconds = 0;
};

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024 * 1024)); }

/// `plan` on an inference service: the cheapest deployment that meets the SLO at the scenario's rate.
void plan_service(const PlanArgs& a, const api::ScenarioSource& source) {
  api::ServingPlanOptions opt;
  opt.threads = a.jobs;
  if (a.probe_seconds > 0) opt.probe_duration = Time::from_seconds(a.probe_seconds);
  const api::ServingPlan r = api::plan_serving(source, opt);
  std::ostream& out = a.json == "-" ? std::cerr : std::cout;
  out << fmt::format("serving plan: {} on at most {} {} GPUs at {:.3g} requests/s; SLO: TTFT {:.0f} ms and TPOT "
                     "{:.0f} ms for {:.1f}% of requests\n",
                     r.model_name, r.max_gpus, r.gpu_name, r.rate, r.slo.ttft.seconds() * 1e3,
                     r.slo.tpot.seconds() * 1e3, 100 * r.slo.attainment);
  const bool whole = !r.deployments.empty() && r.deployments.front().deployment.disaggregated();
  out << fmt::format("  {} deployments, {} {} ({}) in {:.1f} s\n\n", r.deployments.size(), r.probes,
                     whole ? "whole-service probes" : "replica probes",
                     opt.probe_duration ? fmt::format("{:.0f} s of arrivals each", a.probe_seconds)
                                        : std::string("each the scenario's window, at least 1,500 requests"),
                     r.seconds);
  out << fmt::format("{:>4}  {:<52} {:>8} {:>5} {:>9} {:>9} {:>7} {:>9} {:>9}\n", "rank", "deployment", "replicas",
                     "GPUs", "TTFT p99", "TPOT p99", "SLO", "$/hour", "$/M tok");
  // The --top best, then every deployment that does not fit (with why); the JSON has them all.
  const std::size_t shown = std::min<std::size_t>(r.deployments.size(), static_cast<std::size_t>(a.top));
  std::vector<std::size_t> misfits;
  for (std::size_t i = 0; i < r.deployments.size(); ++i) {
    const api::ServingCandidate& c = r.deployments[i];
    if (!c.fits) {
      misfits.push_back(i);
      continue;
    }
    if (i >= shown) continue;
    out << fmt::format("{:>4}  {:<52} {:>8} {:>5} {:>6.0f} ms {:>6.1f} ms {:>6.1f}% {:>9.2f} {:>9.3f}{}\n", i + 1,
                       c.description, api::replica_count(c.deployment), c.gpus, c.ttft_p99_s * 1e3, c.tpot_p99_s * 1e3,
                       100 * c.slo_attainment, c.cost_usd_per_hour, c.usd_per_million_tokens,
                       c.meets_slo ? "" : "  misses the SLO");
  }
  const std::size_t rest = r.deployments.size() - shown -
                           static_cast<std::size_t>(std::count_if(misfits.begin(), misfits.end(),
                                                                  [&](std::size_t i) { return i >= shown; }));
  if (rest > 0) {
    out << fmt::format("   ... {} more (--top {} shows them; --json has every one)\n", rest, r.deployments.size());
  }
  out << "\nwhy each lost to the one above:\n";
  for (std::size_t i = 1; i < shown; ++i) {
    if (r.deployments[i].fits) out << fmt::format("  #{}: {}\n", i + 1, r.deployments[i].why_lost);
  }
  if (!misfits.empty()) {
    out << "\nweights that do not fit (excluded):\n";
    for (std::size_t i : misfits) {
      out << fmt::format("  {}: {}\n", r.deployments[i].description, r.deployments[i].reason);
    }
  }
  if (!a.json.empty()) {
    const std::string s = api::serving_plan_json(r, r.scenario_name).dump(2) + "\n";
    if (a.json == "-") std::cout << s;
    else write_file_atomically(a.json, s);
  }
  if (!r.found()) throw InputError({a.scenario, 0, 0}, "serving.slo", r.no_plan_reason());
  const api::ServingCandidate& b = r.deployments.front();
  if (b.deployment.disaggregated()) {
    out << fmt::format("\nanswer: {} GPUs, {}, at ${:.2f} per hour (${:.3f} per GPU-hour), ${:.3f} per million "
                       "tokens\n",
                       b.gpus, b.description, b.cost_usd_per_hour, b.usd_per_gpu_hour, b.usd_per_million_tokens);
  } else {
    out << fmt::format("\nanswer: {} GPU{}, {} replica{} of {}, at ${:.2f} per hour (${:.3f} per GPU-hour), ${:.3f} "
                       "per million tokens\n",
                       b.gpus, b.gpus == 1 ? "" : "s", b.deployment.replicas, b.deployment.replicas == 1 ? "" : "s",
                       b.description, b.cost_usd_per_hour, b.usd_per_gpu_hour, b.usd_per_million_tokens);
  }
  if (const std::string note = r.close_call(); !note.empty()) out << note << "\n";
  if (const auto& k = r.best_check) {
    out << fmt::format("checked as a whole service ({} requests over {:.0f} s, every replica behind the scenario's "
                       "routing): {:.1f}% within the SLO, TTFT p99 {:.0f} ms, TPOT p99 {:.1f} ms\n",
                       k->requests, k->duration_s, 100 * k->slo_attainment, k->ttft_p99_s * 1e3,
                       k->tpot_p99_s * 1e3);
  }
}
}  // namespace

void register_plan_command(CLI::App& app) {
  auto a = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan", "Search the parallel plan of a scenario: screen every valid plan, replay the best K in full; on a "
      "serving scenario, the cheapest deployment that meets the SLO at its rate");
  cmd->add_option("scenario", a->scenario,
                  "Scenario file; its parallelism: section is ignored (or is `search`); with a serving: section, its "
                  "deployment and engine limits are")
      ->required();
  cmd->add_option("--top", a->top,
                  "Plans replayed in full from the head of the screened ranking (serving scenarios: deployments shown)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--sample", a->sample, "Further plans replayed, spread over the ranking, for the rank correlation")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("-j,--jobs", a->jobs,
                  "Screen and replay threads; serving scenarios: deployments probed at once (default: all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--json", a->json, "Write the ranking as JSON to FILE ('-' for standard output)")->type_name("FILE|-");
  cmd->add_option("--probe-seconds", a->probe_seconds,
                  "Serving scenarios: seconds of arrivals in each replica probe (default: the scenario's "
                  "serving.duration, or about 1,500 requests' worth where that is longer)")
      ->check(CLI::PositiveNumber);
  add_settings_option(*cmd, a->set);
  cmd->callback([a] {
    const api::ScenarioSource source{.path = a->scenario, .text = {}, .set = parse_settings(a->set), .profile = {}};
    if (api::is_service(source)) return plan_service(*a, source);
    const std::string text = api::scenario_text(source);
    api::SearchOptions opt;
    opt.top_k = a->top;
    opt.sample = a->sample;
    opt.threads = a->jobs;
    const api::PlanRanking r = api::search_plans(text, a->scenario, opt);
    std::ostream& out = a->json == "-" ? std::cerr : std::cout;
    out << fmt::format("plan search: {} on {} GPUs ({})\n", r.model_name, r.gpus, r.profile);
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
      const std::string s = api::ranking_json(r, r.scenario_name).dump(2) + "\n";
      if (a->json == "-") std::cout << s;
      else write_file_atomically(a->json, s);
    }
  });
}

}  // namespace cs::cli
