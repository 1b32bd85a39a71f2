#include "sim/schedule/schedule_report.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include <fmt/format.h>

namespace cs {
namespace {

nlohmann::ordered_json opt(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

const char* kind_name(JobKind k) { return k == JobKind::training ? "training" : "batch"; }

std::string hours(double s) { return fmt::format("{:.1f} h", s / 3600); }

}  // namespace

nlohmann::ordered_json schedule_json(const ScheduleRun& run) {
  const ScheduleResult& r = run.result;
  nlohmann::ordered_json j;
  j["kind"] = "schedule";
  j["name"] = run.config.name;
  j["span_s"] = run.cluster.span_s;
  j["policy"] = std::string(policy_names().name(run.config.policy));
  j["isolation"] = std::string(isolation_names().name(run.config.isolation));
  j["gpus"] = run.cluster.gpus;
  auto& jobs = j["jobs"] = nlohmann::ordered_json::array();
  for (const auto& o : r.jobs) {
    nlohmann::ordered_json x;
    x["name"] = o.name;
    x["kind"] = kind_name(o.kind);
    x["tenant"] = o.tenant;
    x["submitted_s"] = o.submitted_s;
    x["started_s"] = opt(o.started_s);
    x["finished_s"] = opt(o.finished_s);
    x["gpu_hours"] = o.gpu_hours;
    x["lost_work_s"] = o.lost_work_s;
    x["queued_s"] = o.queued_s;
    x["progress"] = o.progress;
    x["preemptions"] = o.preemptions;
    x["resizes"] = o.resizes;
    x["failures"] = o.failures;
    x["oom_kills"] = o.oom_kills;
    x["energy_kwh"] = o.energy_j / 3.6e6;
    x["cost_usd"] = o.cost_usd;
    if (!o.partition.empty()) {
      x["partition"] = o.partition;
      x["time_limits"] = o.time_limits;
    }
    if (!o.never_fits.empty()) x["never_fits"] = o.never_fits;
    jobs.push_back(std::move(x));
  }
  auto& services = j["services"] = nlohmann::ordered_json::array();
  for (const auto& o : r.services) {
    nlohmann::ordered_json x;
    x["name"] = o.name;
    x["kind"] = "serving";
    x["tenant"] = o.tenant;
    x["slo_attainment"] = o.slo_attainment;
    x["ttft_p99_s"] = opt(o.ttft_p99_s);
    x["tpot_p99_s"] = opt(o.tpot_p99_s);
    if (o.measured) {
      x["given_by"] = "measured";  // latency against batch size: no tokens, so TTFT and TPOT are null
      x["latency_p99_s"] = opt(o.latency_p99_s);
    }
    x["gpu_hours"] = o.gpu_hours;
    x["oom_kills"] = o.oom_kills;
    x["energy_kwh"] = o.energy_j / 3.6e6;
    x["cost_usd"] = o.cost_usd;
    if (!o.colocation.empty()) x["colocation"] = o.colocation;
    auto& hs = x["hours"] = nlohmann::ordered_json::array();
    for (const auto& h : o.hours) {
      nlohmann::ordered_json y{{"rate_per_s", h.rate},
                               {"replicas", h.replicas},
                               {"colocated", h.colocated},
                               {"wanted", h.wanted},
                               {"slo_attainment", h.outcome.attainment},
                               {"ttft_p99_s", opt(h.outcome.ttft_p99_s)},
                               {"tpot_p99_s", opt(h.outcome.tpot_p99_s)}};
      if (o.measured) y["latency_p99_s"] = opt(h.outcome.latency_p99_s);
      hs.push_back(std::move(y));
    }
    services.push_back(std::move(x));
  }
  auto& c = j["cluster"];
  c["gpu_allocated_fraction"] = r.gpu_allocated_fraction;
  c["gpu_busy_fraction"] = r.gpu_busy_fraction;
  c["energy_kwh"] = r.energy_kwh;
  c["peak_facility_kw"] = r.peak_facility_kw;
  c["circuit_kw"] = run.cluster.circuit_w ? nlohmann::ordered_json(*run.cluster.circuit_w / 1e3) : nullptr;
  c["over_circuit_hours"] = r.over_circuit_hours;
  c["fragmentation"] = r.fragmentation;
  c["node_failures"] = r.node_failures;
  auto& hs = c["hours"] = nlohmann::ordered_json::array();
  for (const auto& h : r.hours) {
    hs.push_back({{"gpu_allocated_fraction", h.allocated_fraction},
                  {"gpu_busy_fraction", h.busy_fraction},
                  {"energy_kwh", h.energy_kwh},
                  {"peak_facility_kw", h.peak_facility_kw}});
  }
  auto& cost = j["cost"];
  cost["tco_usd"] = r.tco_usd;
  cost["idle_usd"] = r.idle_usd;
  cost["per_tenant"] = nlohmann::ordered_json::object();
  for (const auto& [t, usd] : r.per_tenant_usd) cost["per_tenant"][t] = usd;
  j["notes"] = run.notes;
  j["warnings"] = r.warnings;
  j["timing"] = {{"model_s", run.model_s}, {"simulate_s", run.simulate_s}, {"events", r.events}};
  return j;
}

std::string schedule_summary(const ScheduleRun& run) {
  const ScheduleResult& r = run.result;
  std::ostringstream o;
  o << fmt::format("schedule {}: {} GPUs over {}, policy {}, isolation {}\n", run.config.name, run.cluster.gpus,
                   hours(run.cluster.span_s), policy_names().name(run.config.policy),
                   isolation_names().name(run.config.isolation));
  o << "\njobs\n";
  o << fmt::format("  {:<22} {:<9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>8} {:>10}\n", "name", "kind", "submit", "start",
                   "finish", "queued", "GPU-hours", "lost", "cost");
  for (const auto& j : r.jobs) {
    const auto t = [](const std::optional<double>& v) { return v ? fmt::format("{:.1f} h", *v / 3600) : "-"; };
    o << fmt::format("  {:<22} {:<9} {:>9} {:>9} {:>9} {:>9} {:>10.0f} {:>8} {:>10}\n", j.name, kind_name(j.kind),
                     hours(j.submitted_s), t(j.started_s),
                     j.finished_s ? t(j.finished_s) : fmt::format("{:.0f}%", 100 * j.progress), hours(j.queued_s),
                     j.gpu_hours, hours(j.lost_work_s), fmt::format("${:.0f}", j.cost_usd));
    if (!j.partition.empty()) {
      o << "      partition " << j.partition
        << (j.time_limits > 0 ? fmt::format("; stopped at its max_time {} times", j.time_limits) : "") << "\n";
    }
    if (!j.never_fits.empty()) o << "      never fits: " << j.never_fits << "\n";
  }
  if (!r.services.empty()) {
    o << "\nservices\n";
    o << fmt::format("  {:<22} {:>10} {:>12} {:>12} {:>10} {:>10}\n", "name", "SLO met", "TTFT p99", "TPOT p99",
                     "GPU-hours", "cost");
    for (const auto& s : r.services) {
      const auto ms = [](const std::optional<double>& v) { return v ? fmt::format("{:.0f} ms", *v * 1e3) : "-"; };
      o << fmt::format("  {:<22} {:>9.1f}% {:>12} {:>12} {:>10.0f} {:>10}\n", s.name, 100 * s.slo_attainment,
                       ms(s.ttft_p99_s), ms(s.tpot_p99_s), s.gpu_hours, fmt::format("${:.0f}", s.cost_usd));
      if (s.measured) o << "      given by measured latency: request latency p99 " << ms(s.latency_p99_s) << "\n";
      if (!s.colocation.empty()) o << "      co-located replicas: " << s.colocation << "\n";
    }
    o << "  (TTFT and TPOT p99: the worst hour's)\n";
  }
  o << "\ncluster\n";
  o << fmt::format("  GPUs allocated {:.1f}%, busy {:.1f}%, fragmentation {:.1f}% of free GPUs stranded\n",
                   100 * r.gpu_allocated_fraction, 100 * r.gpu_busy_fraction, 100 * r.fragmentation);
  o << fmt::format("  energy {:.1f} MWh, peak facility power {:.1f} kW", r.energy_kwh / 1e3, r.peak_facility_kw);
  if (run.cluster.circuit_w) {
    o << fmt::format(" against a {:.1f} kW circuit ({} hours over)", *run.cluster.circuit_w / 1e3, r.over_circuit_hours);
  }
  o << fmt::format("\n  node failures {}\n", r.node_failures);
  o << fmt::format("\ncost ${:.0f} over the span (idle ${:.0f})\n", r.tco_usd, r.idle_usd);
  for (const auto& [t, usd] : r.per_tenant_usd) o << fmt::format("  {:<22} ${:.0f}\n", t, usd);
  if (!run.notes.empty()) {
    o << "\nhow each part was priced\n";
    for (const auto& n : run.notes) o << "  " << n << "\n";
  }
  for (const auto& w : r.warnings) o << "warning: " << w << "\n";
  return o.str();
}

std::string schedule_trace(const ScheduleRun& run) {
  // Chrome trace events: one process per node (pid = node + 1), one thread per GPU; counters on pid 0.
  nlohmann::json events = nlohmann::json::array();
  const int per = run.cluster.gpus_per_node;
  for (int n = 0; n * per < run.cluster.gpus; ++n) {
    events.push_back({{"ph", "M"}, {"pid", n + 1}, {"name", "process_name"}, {"args", {{"name", fmt::format("node {}", n)}}}});
  }
  for (const auto& iv : run.result.intervals) {
    for (int g = iv.first_gpu; g < iv.first_gpu + iv.gpus; ++g) {
      events.push_back({{"ph", "X"},
                        {"pid", g / per + 1},
                        {"tid", g % per + (iv.service ? 100 : 0)},
                        {"name", iv.who + (iv.colocated ? " (co-located)" : "")},
                        {"cat", iv.service ? "service" : "job"},
                        {"ts", iv.from_s * 1e6},
                        {"dur", (iv.to_s - iv.from_s) * 1e6}});
    }
  }
  // A measured service's replicas and p99 request latency by hour (a scenario service's hours are in the JSON).
  for (const auto& s : run.result.services) {
    if (!s.measured) continue;
    for (std::size_t h = 0; h < s.hours.size(); ++h) {
      nlohmann::json args{{"replicas", s.hours[h].replicas}, {"colocated", s.hours[h].colocated}};
      if (s.hours[h].outcome.latency_p99_s) args["latency p99 ms"] = *s.hours[h].outcome.latency_p99_s * 1e3;
      events.push_back({{"ph", "C"}, {"pid", 0}, {"name", s.name}, {"ts", h * 3600.0 * 1e6}, {"args", args}});
    }
  }
  const auto& hours_v = run.result.hours;
  for (std::size_t h = 0; h < hours_v.size(); ++h) {
    events.push_back({{"ph", "C"}, {"pid", 0}, {"name", "cluster"}, {"ts", h * 3600.0 * 1e6},
                      {"args", {{"allocated %", 100 * hours_v[h].allocated_fraction},
                                {"busy %", 100 * hours_v[h].busy_fraction}}}});
    events.push_back({{"ph", "C"}, {"pid", 0}, {"name", "facility kW"}, {"ts", h * 3600.0 * 1e6},
                      {"args", {{"peak", hours_v[h].peak_facility_kw}}}});
  }
  return nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump();
}

}  // namespace cs
