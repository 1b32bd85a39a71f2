#include "sim/design/schedule_design.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <fmt/format.h>
#include <limits>

#include "sim/facility/money_units.hpp"
#include "sim/facility/tco_model.hpp"
#include "sim/schedule/schedule_model.hpp"
#include "sim/scenario/facility_link.hpp"

namespace cs {
namespace {

/// The cluster's base scenario at the schedule's GPU count, as the schedule layer loads it.
Scenario load_cluster_scenario(const ScheduleConfig& cfg) {
  std::vector<Setting> set;
  if (cfg.cluster.gpus > 0) set.push_back({"cluster.gpus", std::to_string(cfg.cluster.gpus)});
  try {
    return load_scenario(InputNode::load_file(cfg.cluster.scenario, set));
  } catch (const InputError& e) {
    throw InputError({cfg.path, 0, 0}, "cluster.scenario", std::string("its scenario does not load: ") + e.what());
  }
}

/// The cluster priced as the schedule layer prices it: every GPU computing, so that the power figures are the
/// build's (the schedule's own energy replaces the electricity in the TCO).
RunProfile nominal_profile(const Scenario& sc) {
  RunProfile profile;
  profile.step_time = Time::from_seconds(1.0);
  profile.fractions = fractions_from_times(Time::from_seconds(1.0), Time::zero(), Time::zero(), Time::zero());
  profile.tokens_per_step = 1;
  profile.token_budget = 1;
  profile.parameter_count = 1;
  profile.gpu = sc.profile.gpu;
  return profile;
}

ScheduleFigures schedule_figures(const ScheduleConfig& cfg, const ScheduleRun& run, DesignCandidate& d) {
  ScheduleFigures f;
  const ScheduleResult& r = run.result;
  double last = 0;
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    const JobOutcome& o = r.jobs[i];
    if (o.kind != JobKind::training) continue;
    ++f.training_jobs;
    f.training_gpu_hours += o.gpu_hours;
    if (o.finished_s) last = std::max(last, *o.finished_s);
    else ++f.training_unfinished;
    f.jobs.push_back(
        {.name = o.name, .finished_s = o.finished_s, .alone_s = run.jobs[i].work_s, .gpu_hours = o.gpu_hours});
  }
  if (f.training_jobs > 0 && f.training_unfinished == 0) f.training_finished_s = last;
  for (const ServiceOutcome& s : r.services) {
    const auto spec = std::find_if(cfg.services.begin(), cfg.services.end(),
                                   [&](const ServiceSpec& x) { return x.name == s.name; });
    const double target = spec != cfg.services.end() ? spec->target_attainment : 0.0;
    if (s.slo_attainment < target) {
      d.meets_slo = false;
      d.slo_miss += fmt::format("{}{} {:.1f}% within the SLO against {:.1f}%", d.slo_miss.empty() ? "" : "; ", s.name,
                                100 * s.slo_attainment, 100 * target);
    }
    if (!f.worst_slo_attainment || s.slo_attainment < *f.worst_slo_attainment) {
      f.worst_slo_attainment = s.slo_attainment;
      f.worst_service = s.name;
      f.worst_target = target;
    }
  }
  f.energy_kwh = r.energy_kwh;
  f.peak_facility_kw = r.peak_facility_kw;
  f.cost_usd = r.tco_usd;
  f.gpu_busy_fraction = r.gpu_busy_fraction;
  f.node_failures = r.node_failures;
  return f;
}

DesignCandidate evaluate_schedule(const ScheduleConfig& cfg, const FabricCandidate& c) {
  DesignCandidate d{.family = c.family, .label = c.label, .oversubscription = c.oversubscription};
  try {
    Scenario cluster = load_cluster_scenario(cfg);
    put_candidate_fabric(cluster, c);
    describe_build(cluster.topology, d);
    const PriceBook book = cluster.pricebook.empty() ? PriceBook::load_default() : PriceBook::load(cluster.pricebook);
    const TcoReport t = compute_tco(cluster.facility, design_inventory(cluster, book), nominal_profile(cluster), book);
    for (const BomLine& l : t.bom.lines) {
      if (l.category == "network") d.network_bom.push_back(l);
    }
    d.network_capex_usd = t.bom.total("network").value();
    d.capex_usd = t.hardware_capex.value();
    d.network_power_w = t.power.switch_power.value() + t.power.transceiver_power.value();
    d.it_peak_power_w = t.power.it_peak.value();
    const ScheduleRun run = run_schedule(cfg, [&c](Scenario& sc) { put_candidate_fabric(sc, c); });
    d.schedule = schedule_figures(cfg, run, d);
    // Ranked to the millisecond: two fabrics on which the jobs ran alike finish together, not by rounding noise.
    d.time_to_train_s = d.schedule->training_finished_s
                            ? std::round(*d.schedule->training_finished_s * 1e3) / 1e3
                            : std::numeric_limits<double>::infinity();
    // TCO per year: the bill's fixed costs plus the schedule's simulated energy at the facility's price, the
    // span repeated over the year.
    const double span_s = run.cluster.span_s;
    const double electricity_usd = run.result.energy_kwh * 3.6e6 * run.cluster.usd_per_joule;
    d.tco_usd_per_year = t.fixed_per_year.value() * kHoursPerYear + electricity_usd * kHoursPerYear * 3600.0 / span_s;
  } catch (const std::exception& e) {
    d.error = e.what();
  }
  return d;
}

}  // namespace

void put_candidate_fabric(Scenario& sc, const FabricCandidate& c) {
  const int k = sc.topology.nodes();
  if (k <= 1) return;
  FabricSpec f = c.fabric;
  if (f.kind == FabricKind::ocs) {
    const NodeSpec& node = sc.topology.node();
    NodeTraffic traffic{.nodes = k, .bytes = std::vector<double>(static_cast<std::size_t>(k * k), 0.0)};
    if (!sc.serving) traffic = node_traffic(sc.model, sc.plan, sc.training, node.gpus, k);
    if (!f.ocs_circuits.empty()) f.ocs_circuits = choose_ocs_circuits(traffic, node.nic_spec.count);
    else f.ocs_shifts = choose_ocs_strides(stride_traffic(traffic), node.nic_spec.count / 2, k);
  }
  sc.topology = build_topology(sc.topology.name() + ", " + c.label, sc.topology.node(), f, k);
}

std::vector<FabricCandidate> schedule_candidates(const ScheduleConfig& config) {
  const Scenario sc = load_cluster_scenario(config);
  const int nodes = sc.topology.nodes();
  const FabricSpec base = sc.topology.fabric();
  // A schedule's cluster may sit on one switch (a small build): its link and switch still size the candidates.
  if (base.kind == FabricKind::none || nodes < 2) {
    throw InputError({config.path, 0, 0}, "cluster.scenario",
                     "design needs a cluster of two nodes or more whose topology has a scale-out fabric (link and "
                     "switch) to size candidates from");
  }
  // The cluster's OCS circuits follow its base scenario's job (they price the OCS ports and fibres; each job of
  // the schedule gets its own, put_candidate_fabric).
  const NodeSpec& node = sc.topology.node();
  const NodeTraffic traffic = node_traffic(sc.model, sc.plan, sc.training, node.gpus, nodes);
  return fabric_candidates(base, nodes, choose_ocs_strides(stride_traffic(traffic), node.nic_spec.count / 2, nodes),
                           choose_ocs_circuits(traffic, node.nic_spec.count));
}

DesignReport design_schedule(const ScheduleConfig& config, const DesignOptions& options) {
  DesignReport rep;
  rep.workload = "schedule";
  rep.scenario = config.name;
  rep.span_s = config.span.seconds();
  rep.budget = options.budget;
  rep.power = options.power;
  const std::vector<FabricCandidate> candidates = schedule_candidates(config);
  {
    const Scenario sc = load_cluster_scenario(config);
    rep.gpus = sc.gpus;
    rep.nodes = sc.topology.nodes();
  }
  // A candidate whose cluster build is identical to an earlier one's of its family (a small cluster fits one
  // switch whatever the tiers or oversubscription asked for) would replay the same schedule: it is not run again
  // but copied, and rank_candidates lists it once, as for a scenario. (A job's fabric is the same family built for
  // fewer nodes, which cannot need more than the cluster's build.) OCS candidates are never merged.
  const std::size_t n = candidates.size();
  std::vector<int> same_as(n, -1);
  {
    const Scenario cluster = load_cluster_scenario(config);
    std::vector<std::vector<std::string>> parts(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (candidates[i].family == "ocs") continue;
      try {
        Scenario sc = cluster;
        put_candidate_fabric(sc, candidates[i]);
        DesignCandidate built;
        describe_build(sc.topology, built);
        parts[i] = built.parts;
      } catch (const std::exception&) {
        continue;  // evaluated on its own, where the error is reported
      }
      for (std::size_t j = 0; j < i && same_as[i] < 0; ++j) {
        if (same_as[j] < 0 && !parts[j].empty() && candidates[j].family == candidates[i].family &&
            parts[j] == parts[i]) {
          same_as[i] = static_cast<int>(j);
        }
      }
    }
  }
  std::vector<std::size_t> unique;
  for (std::size_t i = 0; i < n; ++i) {
    if (same_as[i] < 0) unique.push_back(i);
  }
  rep.candidates.resize(n);
  for_each_candidate(unique.size(), options.threads, [&](std::size_t u) {
    const std::size_t i = unique[u];
    rep.candidates[i] = evaluate_schedule(config, candidates[i]);
    rep.candidates[i].candidate = static_cast<int>(i);
  });
  for (std::size_t i = 0; i < n; ++i) {
    if (same_as[i] < 0) continue;
    DesignCandidate& d = rep.candidates[i];
    d = rep.candidates[static_cast<std::size_t>(same_as[i])];
    d.label = candidates[i].label;
    d.oversubscription = candidates[i].oversubscription;
    d.candidate = static_cast<int>(i);
  }
  if (std::all_of(rep.candidates.begin(), rep.candidates.end(),
                  [](const DesignCandidate& c) { return !c.error.empty(); })) {
    throw InputError({config.path, 0, 0}, "",
                     "no candidate fabric could run the schedule: " + rep.candidates.front().error);
  }
  rank_candidates(rep);
  return rep;
}

}  // namespace cs
