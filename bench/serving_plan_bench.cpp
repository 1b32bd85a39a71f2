// Benchmark of the serving plan search (docs/performance.md, issue 43's "at most 30 s on 2 cores"): every
// candidate deployment of a service bisected to its fewest replicas, printing the probes, the wall and CPU time
// and the best. Usage: bench_serving_plan [SCENARIO] [THREADS] [PROBE_SECONDS] (0: the scenario's
// serving.duration, or about 1,500 requests where that is longer)
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>

#include "sim/search/serving_plan.hpp"

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : CS_SOURCE_DIR "/scenarios/llama3-70b-serving-32xh100.yaml";
  cs::ServingPlanOptions opt;
  opt.threads = argc > 2 ? std::atoi(argv[2]) : 2;
  if (argc > 3 && std::atof(argv[3]) > 0) opt.probe_duration = cs::Time::from_seconds(std::atof(argv[3]));
  const cs::Scenario sc = cs::load_scenario(path);
  const cs::ServingPlan p = cs::plan_serving(sc, opt);
  fmt::print("scenario            {}\n", sc.name);
  fmt::print("deployments         {} ({} fit, {} meet the SLO)\n", p.deployments.size(),
             std::count_if(p.deployments.begin(), p.deployments.end(), [](const auto& c) { return c.fits; }),
             std::count_if(p.deployments.begin(), p.deployments.end(), [](const auto& c) { return c.meets_slo; }));
  fmt::print("replica probes      {} ({})\n", p.probes,
             opt.probe_duration ? fmt::format("{:.0f} s of arrivals each", opt.probe_duration->seconds())
                                : std::string("the scenario's window, at least about 1,500 requests"));
  if (p.found()) {
    const cs::ServingCandidate& b = p.deployments.front();
    fmt::print("best                {} x {} = {} GPUs, {:.1f}% within the SLO, ${:.2f} per hour\n",
               b.deployment.replicas, b.description, b.gpus, 100 * b.slo_attainment, b.cost_usd_per_hour);
    if (p.best_check) fmt::print("checked whole       {:.1f}% within the SLO\n", 100 * p.best_check->slo_attainment);
  } else {
    fmt::print("best                none: {}\n", p.no_plan_reason());
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                     static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  fmt::print("search              {:.2f} s wall on {} threads, {:.2f} s CPU (load included)\n", p.seconds, opt.threads,
             cpu);
  return 0;
}
