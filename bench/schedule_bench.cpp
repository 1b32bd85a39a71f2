// clustersim schedule's speed and its service aggregation (docs/performance.md, docs/schedule.md):
//   1. the week of scenarios/schedules/week-1024xh100.yaml (1,024 GPUs, 3 services peaking at 200 requests/s,
//      41 training and 9 batch jobs): wall time building the models and simulating;
//   2. the error of evaluating a service hour by hour at steady Poisson rates (what the schedule does) against
//      simulating its whole day request by request with the same diurnal curve and the same replicas.
//   build/bench/bench_schedule
#include <chrono>
#include <cstdio>
#include <string>

#include <yaml-cpp/yaml.h>

#include "sim/input/yaml_edit.hpp"
#include "sim/scenario/runner.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/schedule/schedule_model.hpp"

using namespace cs;

int main() {
  const std::string root = CS_SOURCE_DIR;
  {
    const auto t0 = std::chrono::steady_clock::now();
    const ScheduleRun run = run_schedule(load_schedule_file(root + "/scenarios/schedules/week-1024xh100.yaml"));
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    int finished = 0;
    for (const auto& j : run.result.jobs) finished += j.finished_s ? 1 : 0;
    std::printf("week-1024xh100: %.1f s wall (models %.1f s, simulation %.2f s, %lld events); %d of %zu jobs "
                "finished; GPUs allocated %.1f%%\n",
                wall, run.model_s, run.simulate_s, static_cast<long long>(run.result.events), finished,
                run.result.jobs.size(), 100 * run.result.gpu_allocated_fraction);
    std::fflush(stdout);
  }
  // A day of the Llama 3 70B service on 8 fixed replicas (32 GPUs), peaking at 10 requests/s.
  const std::string curve = "[1, 0.5, 0.5, 0.5, 0.5, 1, 2, 3, 5, 7, 8, 9, 9, 10, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]";
  const std::string service = root + "/scenarios/llama3-70b-serving-32xh100.yaml";
  ScheduleConfig day;
  day.name = "aggregation check";
  day.path = service;
  day.span = Time::from_seconds(24 * 3600.0);
  day.cluster.scenario = service;
  day.isolation = Isolation::nodes;
  day.failures = false;
  ServiceSpec s;
  s.name = "chat";
  s.scenario = service;
  s.min_replicas = s.max_replicas = 8;
  const double rates[24] = {1, 0.5, 0.5, 0.5, 0.5, 1, 2, 3, 5, 7, 8, 9, 9, 10, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  for (int h = 0; h < 24; ++h) s.rate[h] = rates[h];
  day.services.push_back(s);
  auto t0 = std::chrono::steady_clock::now();
  const ScheduleRun agg = run_schedule(day);
  const double agg_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t0 = std::chrono::steady_clock::now();
  YAML::Node doc = YAML::LoadFile(service);
  remove_dotted(doc, "serving.load.rate");
  YAML::Emitter out;
  out << doc;
  const Scenario full_sc = load_scenario(InputNode::parse(
      out.c_str(), service,
      {{"serving.load.arrivals", "diurnal"}, {"serving.load.diurnal", curve}, {"serving.duration", "24h"}}));
  const RunResult full = run_scenario(full_sc);
  const double full_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const ServingResult& f = *full.serving;
  const auto& a = agg.result.services.front();
  const double full_att = static_cast<double>(f.slo_met) / static_cast<double>(f.arrived);
  std::printf("one day, 8 replicas of Llama 3 70B (TP4), peak 10 requests/s:\n");
  std::printf("  request by request: %lld requests, SLO attainment %.4f, TTFT p99 %.0f ms, TPOT p99 %.1f ms (%.1f s)\n",
              static_cast<long long>(f.arrived), full_att, f.ttft.p99_s * 1e3, f.tpot.p99_s * 1e3, full_s);
  std::printf("  hour by hour:       SLO attainment %.4f, worst hour's TTFT p99 %.0f ms, TPOT p99 %.1f ms (%.1f s)\n",
              a.slo_attainment, a.ttft_p99_s.value_or(0) * 1e3, a.tpot_p99_s.value_or(0) * 1e3, agg_s);
  std::printf("  attainment error %+.2f points\n", 100 * (a.slo_attainment - full_att));
  return 0;
}
