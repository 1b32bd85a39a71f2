#include "sim/design/fabric_design.hpp"
#include "sim/design/placement_optimiser.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fmt/format.h>
#include <mutex>
#include <thread>

#include "sim/core/human_units.hpp"
#include "sim/facility/money_units.hpp"
#include "sim/facility/tco_model.hpp"
#include "sim/scenario/facility_link.hpp"
#include "sim/scenario/runner.hpp"

namespace cs {
namespace {

/// Length class of a cable tier, as a floor plan of rows of racks gives it (estimate: leaves at the end of the
/// row, spines and cores in a network row, direct and OCS links across the hall).
std::string length_class(const std::string& span, bool ocs) {
  if (span == "node-leaf") return ocs ? "<= 500 m, to the OCS row" : "<= 30 m, in row";
  if (span == "leaf-spine") return "<= 100 m, row to network row";
  return "<= 500 m, across the hall";
}

int tier_count(const FabricInventory& f) {
  int tiers = 0;
  for (const SwitchTierCount& s : f.switches) tiers += s.count > 0;
  return tiers;
}

DesignCandidate evaluate(const std::function<Scenario()>& fresh, const FabricCandidate& c) {
  DesignCandidate d{.family = c.family, .label = c.label, .oversubscription = c.oversubscription};
  try {
    Scenario sc = fresh();
    sc.topology = build_topology(sc.topology.name() + ", " + c.label, sc.topology.node(), c.fabric, sc.topology.nodes());
    describe_build(sc.topology, d);
    const PriceBook book = sc.pricebook.empty() ? PriceBook::load_default() : PriceBook::load(sc.pricebook);
    RunResult r = run_scenario(sc);
    if (sc.plan.placement == Placement::optimise) r = run_with_placement(sc, std::move(r));
    const TcoReport t = compute_tco(sc.facility, design_inventory(sc, book), make_run_profile(sc, r), book);
    for (const BomLine& l : t.bom.lines) {
      if (l.category == "network") d.network_bom.push_back(l);
    }
    d.network_capex_usd = t.bom.total("network").value();
    d.capex_usd = t.hardware_capex.value();
    d.network_power_w = t.power.switch_power.value() + t.power.transceiver_power.value();
    d.it_peak_power_w = t.power.it_peak.value();
    d.step_time_s = r.step.step_time.seconds();
    d.placement = r.placement;
    d.time_to_train_s = r.time_to_train ? r.time_to_train->seconds() : 0.0;
    if (c.fabric.kind == FabricKind::ocs) d.time_to_train_s += c.fabric.ocs_reconfiguration.seconds();
    d.tco_usd_per_year = t.tco_per_year.value() * kHoursPerYear;
  } catch (const InputError& e) {
    d.error = e.what();
  } catch (const std::exception& e) {
    d.error = e.what();
  }
  return d;
}

bool dominates(const DesignCandidate& a, const DesignCandidate& b) {
  // The SLO floor: a candidate whose services miss their SLO never dominates one whose services meet it.
  if (!a.meets_slo && b.meets_slo) return false;
  const bool no_worse = a.time_to_train_s <= b.time_to_train_s && a.network_capex_usd <= b.network_capex_usd &&
                        a.tco_usd_per_year <= b.tco_usd_per_year;
  const bool better = a.time_to_train_s < b.time_to_train_s || a.network_capex_usd < b.network_capex_usd ||
                      a.tco_usd_per_year < b.tco_usd_per_year;
  return no_worse && better;
}

std::string percent(double v, double base) {
  if (std::isinf(v) || std::isinf(base)) {
    if (std::isinf(v) && std::isinf(base)) return "unfinished in both";
    return std::isinf(v) ? "unfinished in the span" : "finished where the other did not";
  }
  return fmt::format("{:+.1f}%", 100.0 * (v / base - 1.0));
}

/// Why `c` lost to `best` (or, with no best, why it is out).
std::string verdict(const DesignCandidate& c, const std::vector<DesignCandidate>& all, const DesignReport& rep) {
  if (!c.error.empty()) return "could not be built or run: " + c.error;
  std::vector<std::string> why;
  if (rep.budget && c.capex_usd > rep.budget->value()) {
    why.push_back("capex " + format_dollars(c.capex_usd) + " over the " + format_dollars(rep.budget->value()) + " budget");
  }
  if (rep.power && c.it_peak_power_w > rep.power->value()) {
    why.push_back("IT peak " + format_watts(c.it_peak_power_w) + " over the " + format_watts(rep.power->value()) + " limit");
  }
  if (!why.empty()) {
    std::string s;
    for (const auto& w : why) s += (s.empty() ? "" : "; ") + w;
    return s;
  }
  if (!c.meets_slo && rep.best >= 0 && all[static_cast<std::size_t>(rep.best)].meets_slo) {
    const DesignCandidate& b = all[static_cast<std::size_t>(rep.best)];
    return "services miss their SLO where " + b.label + "'s meet it: " + c.slo_miss;
  }
  for (const DesignCandidate& o : all) {
    if (o.error.empty() && dominates(o, c)) {
      return "dominated by " + o.label + ": time to train " + percent(c.time_to_train_s, o.time_to_train_s) +
             ", network capex " + percent(c.network_capex_usd, o.network_capex_usd) + ", TCO " +
             percent(c.tco_usd_per_year, o.tco_usd_per_year);
    }
  }
  if (rep.best < 0) return "on the front";
  const DesignCandidate& b = all[static_cast<std::size_t>(rep.best)];
  return "on the front but slower than " + b.label + ": time to train " + percent(c.time_to_train_s, b.time_to_train_s) +
         " for network capex " + percent(c.network_capex_usd, b.network_capex_usd) + ", TCO " +
         percent(c.tco_usd_per_year, b.tco_usd_per_year);
}

}  // namespace

ClusterInventory design_inventory(const Scenario& sc, const PriceBook& book) {
  ClusterInventory inv = make_inventory(sc, book);
  const PriceChoice& p = sc.facility.prices;
  // An OCS path runs NIC -> OCS -> NIC across the hall through a lossy mirror array: single-mode at both ends.
  const bool ocs = sc.topology.fabric().kind == FabricKind::ocs;
  for (CableGroup& c : inv.cables) c.span += " (" + length_class(c.span, ocs) + ")";
  for (TransceiverGroup& t : inv.transceivers) {
    const bool short_reach = t.span == "node-leaf" && !ocs;
    t.model = short_reach ? p.node_transceiver : p.switch_transceiver;
    t.span += short_reach ? " (SR multi-mode, <= 50 m)" : " (DR single-mode, <= 500 m)";
  }
  return inv;
}

void describe_build(const Topology& topology, DesignCandidate& d) {
  const FabricInventory& f = topology.inventory();
  d.tiers = tier_count(f);
  for (const SwitchTierCount& s : f.switches) {
    d.parts.push_back(fmt::format("{} x {} {} ({} ports used)", s.count, s.model, s.tier, s.ports_used));
  }
  for (const CableTierCount& k : f.cables) {
    d.parts.push_back(fmt::format("{} {} cables {}", k.cables, k.tier, k.optical ? "optical" : "copper"));
  }
}

void for_each_candidate(std::size_t n, int threads, const std::function<void(std::size_t)>& work) {
  std::atomic<std::size_t> next{0};
  const unsigned hw = std::max(1U, std::thread::hardware_concurrency());
  const std::size_t count = std::min<std::size_t>(n, threads > 0 ? static_cast<std::size_t>(threads) : hw);
  std::vector<std::jthread> pool;
  for (std::size_t w = 0; w < count; ++w) {
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < n; i = next++) work(i);
    });
  }
}

void rank_candidates(DesignReport& rep) {
  auto& cs = rep.candidates;
  // Label a fat-tree by the tiers it got, and list a build identical to an earlier one once.
  std::vector<DesignCandidate> kept;
  for (DesignCandidate& c : cs) {
    const std::string asked = c.label;
    if (c.error.empty() && c.family == "fat-tree") {
      c.label = fmt::format("fat-tree {}-tier {}:1", c.tiers, static_cast<int>(c.oversubscription));
    }
    // The parts list names every switch tier and cable tier with its count; an OCS's circuits are not in it, so
    // OCS candidates are never merged.
    const auto same = std::find_if(kept.begin(), kept.end(), [&](const DesignCandidate& k) {
      return c.error.empty() && k.error.empty() && k.family == c.family && c.family != "ocs" && k.parts == c.parts;
    });
    if (same != kept.end()) {
      rep.merged.push_back(asked + ": the same build as " + same->label);
      continue;
    }
    kept.push_back(std::move(c));
  }
  cs = std::move(kept);
  for (DesignCandidate& c : cs) {
    if (!c.error.empty()) continue;
    c.within_limits = !(rep.budget && c.capex_usd > rep.budget->value()) && !(rep.power && c.it_peak_power_w > rep.power->value());
    c.pareto = std::none_of(cs.begin(), cs.end(), [&](const DesignCandidate& o) { return o.error.empty() && dominates(o, c); });
  }
  // The SLO floor: when any candidate's services meet their SLO, the best is chosen among those.
  const bool slo_floor = std::any_of(cs.begin(), cs.end(), [](const DesignCandidate& c) {
    return c.error.empty() && c.within_limits && c.meets_slo;
  });
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const DesignCandidate& c = cs[i];
    if (!c.error.empty() || !c.within_limits || (slo_floor && !c.meets_slo)) continue;
    if (rep.best < 0) { rep.best = static_cast<int>(i); continue; }
    const DesignCandidate& b = cs[static_cast<std::size_t>(rep.best)];
    if (c.time_to_train_s < b.time_to_train_s ||
        (c.time_to_train_s == b.time_to_train_s && c.tco_usd_per_year < b.tco_usd_per_year)) {
      rep.best = static_cast<int>(i);
    }
  }
  for (std::size_t i = 0; i < cs.size(); ++i) {
    cs[i].verdict = static_cast<int>(i) == rep.best ? "best" : verdict(cs[i], cs, rep);
  }
}

DesignReport design_fabrics(const std::function<Scenario()>& fresh, const DesignOptions& options) {
  DesignReport rep;
  rep.budget = options.budget;
  rep.power = options.power;
  std::vector<FabricCandidate> candidates;
  {
    const Scenario sc = fresh();
    require_token_budget(sc);
    rep.scenario = sc.name;
    rep.gpus = sc.gpus;
    rep.nodes = sc.topology.nodes();
    const int gpn = sc.topology.node().gpus;
    const NodeTraffic traffic = node_traffic(sc.model, sc.plan, sc.training, gpn, rep.nodes);
    rep.traffic = stride_traffic(traffic);
    const int port_pairs = sc.topology.node().nic_spec.count / 2;
    FabricSpec base = sc.topology.fabric();
    if (base.kind == FabricKind::none || base.kind == FabricKind::single_switch) {
      throw InputError({sc.file, 0, 0}, "cluster.topology",
                       "design needs a topology with a scale-out fabric (link and switch) to size candidates from");
    }
    candidates = fabric_candidates(base, rep.nodes, choose_ocs_strides(rep.traffic, port_pairs, rep.nodes),
                                   choose_ocs_circuits(traffic, sc.topology.node().nic_spec.count));
  }
  rep.candidates.resize(candidates.size());
  for_each_candidate(candidates.size(), options.threads,
                     [&](std::size_t i) {
                       rep.candidates[i] = evaluate(fresh, candidates[i]);
                       rep.candidates[i].candidate = static_cast<int>(i);
                     });
  rank_candidates(rep);
  return rep;
}

}  // namespace cs
