#include "sim/sweep/point_evaluator.hpp"

#include <chrono>
#include <ctime>

#include "sim/report/json_result.hpp"
#include "sim/scenario/runner.hpp"
#include "sim/schedule/schedule_model.hpp"
#include "sim/schedule/schedule_report.hpp"
#include "sim/search/plan_search.hpp"
#include "sim/sweep/sweep_point.hpp"

#ifndef CS_VERSION
#error "CS_VERSION must be defined by the build"
#endif

namespace cs {
namespace {
std::string utc_now() {
  char b[32];
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}
}  // namespace

std::string clustersim_version() { return CS_VERSION; }

namespace {

/// A schedule point: the schedule's JSON (schedule_report), with its jobs and services also keyed by name and the
/// worst service's SLO attainment, so that `clustersim results` can name them (it does not read into lists).
void evaluate_schedule_point(const SweepSpec& spec, const SweepPoint& point, ResultRow& row) {
  try {
    const ScheduleRun run = run_schedule(load_schedule_point(spec, point));
    nlohmann::ordered_json j = schedule_json(run);
    nlohmann::ordered_json services = nlohmann::ordered_json::object(), jobs = nlohmann::ordered_json::object();
    std::optional<double> worst;
    for (const auto& s : j["services"]) {
      services[s["name"].get<std::string>()] = s;
      const double a = s["slo_attainment"].get<double>();
      worst = worst ? std::min(*worst, a) : a;
    }
    for (const auto& job : j["jobs"]) jobs[job["name"].get<std::string>()] = job;
    j["services_by_name"] = services;
    j["jobs_by_name"] = jobs;
    if (worst) j["slo_attainment_min"] = *worst;
    row.result = j.dump();
    row.profile = "schedule";
    row.profile_source = "schedule";
  } catch (const std::exception& e) {
    row.status = "failed";
    row.reason = e.what();
  }
}

}  // namespace

ResultRow evaluate_point(const SweepSpec& spec, const SweepPoint& point, const PointEvalOptions& opt) {
  ResultRow row;
  row.hash = point.hash;
  row.sweep = spec.name;
  row.point_index = point.index;
  row.label = point.label;
  row.axes = point.axes_json();
  row.scenario_yaml = point.yaml;
  row.clustersim_version = clustersim_version();
  const auto t0 = std::chrono::steady_clock::now();
  if (spec.schedule) {
    evaluate_schedule_point(spec, point, row);
    row.eval_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    row.created_at = utc_now();
    return row;
  }
  try {
    SearchableScenario loaded = load_point(spec, point);
    Scenario& sc = loaded.scenario;
    row.profile = sc.profile.provenance.profile;
    row.profile_source = sc.profile.provenance.kind;
    std::optional<RunResult> result;
    if (loaded.search) {
      SearchOptions so;
      so.top = opt.search_top;
      so.sample = 0;
      so.threads = 1;  // the sweep already runs one point per worker thread
      SearchResult found = search_plans(loaded, point.yaml, point_source_name(spec, point), so);
      if (found.replayed.empty()) throw std::runtime_error("plan search: " + found.no_plan_reason());
      const ReplayedPlan& best = found.best_replayed();
      sc.plan = best.candidate.plan;
      apply_candidate(best.candidate, sc.training);
      row.plan = candidate_json(best.candidate).dump();
      result = best.result;
    } else {
      result = run_scenario(sc);
    }
    row.result = to_json(sc, *result).dump();
    row.profile = result->compute_provenance.profile;
    row.profile_source = result->compute_provenance.kind;
    if (!result->fits_in_memory) {
      row.status = "failed";
      row.reason = "out of memory: stage " + std::to_string(result->memory.stage) + " needs " +
                   to_string(result->memory.total()) + " per GPU of " + to_string(result->memory_capacity);
    }
  } catch (const std::exception& e) {
    row.status = "failed";
    row.reason = e.what();
  }
  row.eval_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  row.created_at = utc_now();
  return row;
}

}  // namespace cs
