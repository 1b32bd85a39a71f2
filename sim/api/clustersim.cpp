#include "sim/api/clustersim.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sim/hardware/profile_params.hpp"
#include "sim/input/input_node.hpp"
#include "sim/input/csv_table.hpp"
#include "sim/report/json_result.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/workload/framework_profile.hpp"
#include "sim/scenario/band_basis.hpp"
#include "sim/validation/residual_writer.hpp"
#include "sim/search/fastest_plan.hpp"
#include "sim/sweep/sweep_schema.hpp"
#include "sim/scenario/facility_link.hpp"
#include "sim/search/plan_search.hpp"
#include "sim/design/schedule_design.hpp"
#include "sim/schedule/schedule_model.hpp"
#include "sim/scenario/scenario_params.hpp"
#include "sim/topology/topology_params.hpp"

namespace cs::api {

ScheduleRun schedule(const std::string& path, const std::vector<Setting>& settings) {
  for (const Setting& s : settings) {
    if (const auto why = check_value(InputKind::schedule, s.key, s.value)) {
      throw InputError({"--set " + s.key + "=" + s.value, 0, 0}, s.key, *why);
    }
  }
  return run_schedule(load_schedule_file(path, settings));
}

std::string version() { return CS_VERSION; }

std::string_view to_string(InputKind k) {
  switch (k) {
    case InputKind::scenario: return "scenario";
    case InputKind::topology: return "topology";
    case InputKind::profile: return "profile";
    case InputKind::sweep: return "sweep";
    case InputKind::schedule: return "schedule";
    case InputKind::framework: return "framework";
  }
  return "?";
}

std::optional<InputKind> parse_input_kind(std::string_view s) {
  for (InputKind k : {InputKind::scenario, InputKind::topology, InputKind::profile, InputKind::sweep,
                      InputKind::schedule, InputKind::framework}) {
    if (to_string(k) == s) return k;
  }
  return std::nullopt;
}

const ParamSection& schema(InputKind kind) {
  switch (kind) {
    case InputKind::scenario: return scenario_schema();
    case InputKind::topology: return topology_schema();
    case InputKind::profile: return profile_schema();
    case InputKind::sweep: return sweep_schema();
    case InputKind::schedule: return schedule_schema();
    case InputKind::framework: return framework_profile_params().schema();
  }
  return scenario_schema();
}

nlohmann::ordered_json json_schema(InputKind kind) {
  return param_json_schema(schema(kind), "clustersim " + std::string(to_string(kind)) + " file");
}

std::string schema_markdown(InputKind kind) { return param_markdown(schema(kind), ""); }

const ParamSpec* find_param(InputKind kind, std::string_view dotted_key) {
  return schema(kind).find_param(dotted_key);
}

std::optional<std::string> check_value(InputKind kind, std::string_view dotted_key, std::string_view text) {
  const ParamSpec* p = find_param(kind, dotted_key);
  if (p == nullptr) return "unknown key";
  return p->check_text(text, std::string(dotted_key));
}

std::string param_table_markdown(const std::string& name) {
  const auto slash = name.find('/');
  const std::string kind_text = name.substr(0, slash);
  const std::string path = slash == std::string::npos ? "" : name.substr(slash + 1);
  const auto kind = parse_input_kind(kind_text);
  if (!kind) throw std::invalid_argument("unknown input kind \"" + kind_text + "\" in params marker");
  const ParamSection* s = schema(*kind).find_section(path);
  if (s == nullptr) throw std::invalid_argument("no section \"" + path + "\" in " + kind_text + " files");
  return param_markdown(*s, path);
}

std::string update_param_docs(const std::string& doc) {
  return fill_param_tables(doc, [](const std::string& name) { return param_table_markdown(name); });
}

namespace {
/// Stops the replay from inside: the engine runs spans in order, so a set flag is seen within one span.
class CancelObserver final : public ReplayObserver {
 public:
  explicit CancelObserver(const std::atomic<bool>& flag) : flag_(flag) {}
  void on_span(const Span&) override {
    if (flag_.load(std::memory_order_relaxed)) throw Cancelled{};
  }

 private:
  const std::atomic<bool>& flag_;
};
}  // namespace

RunResult run(const Scenario& sc, const RunOptions& options) {
  std::vector<ReplayObserver*> observers = options.observers;
  std::optional<CancelObserver> cancel;
  if (options.cancel != nullptr) {
    if (options.cancel->load()) throw Cancelled{};
    cancel.emplace(*options.cancel);
    observers.push_back(&*cancel);
  }
  // placement: optimise runs Megatron's order first (the trace is of that run), then the optimised positions.
  const auto placed = [&](RunResult r) {
    return sc.plan.placement == Placement::optimise && !sc.serving ? run_with_placement(sc, std::move(r)) : r;
  };
  if (options.trace_json == nullptr) return placed(run_scenario(sc, observers));
  if (sc.serving) {
    // A service's timeline: its engine iterations, one track per replica (the first 200,000); a disaggregated
    // service's prefill replicas first, then its decode replicas.
    Scenario traced = sc;
    traced.serving->record_iterations = 200'000;
    RunResult r = run_scenario(traced, observers);
    nlohmann::json events = nlohmann::json::array();
    const Deployment& d = traced.serving->deployment;
    std::vector<std::string> tracks;
    if (d.disaggregated()) {
      for (int i = 0; i < d.prefill.replicas; ++i) tracks.push_back("prefill replica " + std::to_string(i));
      for (int i = 0; i < d.decode.replicas; ++i) tracks.push_back("decode replica " + std::to_string(i));
    } else {
      for (int i = 0; i < d.replicas; ++i) tracks.push_back("replica " + std::to_string(i));
    }
    for (std::size_t i = 0; i < tracks.size(); ++i) {
      events.push_back({{"ph", "M"}, {"pid", i + 1}, {"name", "process_name"}, {"args", {{"name", tracks[i]}}}});
    }
    for (const IterationRecord& it : r.serving_iterations) {
      const char* what = it.prefills > 0 ? (it.decodes > 0 ? "prefill + decode" : "prefill") : "decode";
      events.push_back({{"ph", "X"}, {"pid", it.replica + 1}, {"tid", 1}, {"name", what}, {"cat", "iteration"},
                        {"ts", it.start.seconds() * 1e6}, {"dur", (it.end - it.start).seconds() * 1e6},
                        {"args", {{"prefill_chunks", it.prefills}, {"prefill_tokens", it.prefill_tokens},
                                  {"decodes", it.decodes}}}});
    }
    *options.trace_json = nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump();
    return r;
  }
  TraceWriter trace;
  observers.push_back(&trace);
  RunResult r = run_scenario(sc, observers);
  *options.trace_json = trace.to_json();
  return placed(std::move(r));
}

PlanRanking search_plans(const std::string& yaml_text, const std::string& name, const SearchOptions& options) {
  cs::SearchOptions opt;
  opt.top = std::max(1, options.top_k);
  opt.sample = std::max(0, options.sample);
  opt.threads = options.threads;
  opt.cancel = options.cancel;
  opt.progress = options.progress;
  SearchResult r;
  PlanRanking out;
  try {
    SearchableScenario searched = load_searchable_scenario(yaml_text, name);
    out.scenario_name = searched.scenario.name;
    out.model_name = searched.scenario.model.name;
    out.profile = searched.scenario.profile.provenance.profile;
    out.gpus = searched.scenario.gpus;
    r = cs::search_plans(searched, yaml_text, name, opt);
  } catch (const SearchCancelled&) {
    throw Cancelled{};
  }
  out.layouts = r.counts.layouts;
  out.enumerated = r.counts.enumerated;
  out.out_of_memory = r.counts.out_of_memory;
  out.screened = r.counts.valid;
  out.replayed = r.sampled.size();
  out.spearman = r.spearman;
  out.kendall = r.kendall;
  out.screen_s = r.screen_s;
  out.replay_s = r.replay_s;
  if (r.replayed.empty()) out.no_plan_reason = r.no_plan_reason();
  out.zero_bubble_note = r.zero_bubble_note();
  const auto ranked = [](const ReplayedPlan& p) {
    return RankedPlan{.plan = p.candidate,
                      .description = describe(p.candidate),
                      .screen_rank = p.screen_rank + 1,
                      .screened_step_s = p.screen.step.seconds(),
                      .step_s = p.result.step.step_time.seconds(),
                      .mfu = p.result.mfu,
                      .memory = p.result.memory.total(),
                      .fits_in_memory = p.result.fits_in_memory,
                      .why_lost = {},
                      .band = p.result.step_band};
  };
  for (std::size_t i = 0; i < r.replayed.size(); ++i) {
    out.plans.push_back(ranked(r.replayed[i]));
    if (i > 0) out.plans.back().why_lost = why_slower(r.replayed[i], r.replayed[i - 1]);
  }
  for (const ReplayedPlan& p : r.sampled) out.sampled.push_back(ranked(p));
  return out;
}

nlohmann::ordered_json ranking_json(const PlanRanking& r, const std::string& scenario_name) {
  nlohmann::ordered_json j;
  j["scenario"] = scenario_name;
  j["counts"] = {{"layouts", r.layouts}, {"enumerated", r.enumerated}, {"out_of_memory", r.out_of_memory},
                 {"screened", r.screened}};
  j["screen_s"] = r.screen_s;
  j["replay_s"] = r.replay_s;
  j["spearman"] = r.spearman;
  j["kendall"] = r.kendall;
  j["zero_bubble"] = r.zero_bubble_note;
  j["replayed"] = nlohmann::ordered_json::array();
  for (const RankedPlan& p : r.sampled) {
    nlohmann::ordered_json e = candidate_json(p.plan);
    e["screen_rank"] = p.screen_rank;
    e["screened_step_time_s"] = p.screened_step_s;
    e["step_time_s"] = p.step_s;
    if (p.band && p.band->valid()) {
      e["step_time_band_s"] = {{"lo", p.band->low}, {"hi", p.band->high}, {"level", p.band->level},
                               {"basis", p.band->basis}};
    }
    e["mfu"] = p.mfu;
    e["fits_in_memory"] = p.fits_in_memory;
    j["replayed"].push_back(std::move(e));
  }
  return j;
}

namespace {

/// Each setting checked alone against the scenario's declarations, located at "--set KEY=VALUE".
void check_settings(const std::vector<Setting>& settings) {
  for (const Setting& s : settings) {
    if (const auto why = check_value(InputKind::scenario, s.key, s.value)) {
      throw InputError({"--set " + s.key + "=" + s.value, 0, 0}, s.key, *why);
    }
  }
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({path, 0, 0}, "", "cannot open file (does it exist and is it readable?)");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The parsed document of `source` with its settings written over it (each checked alone first).
InputNode parsed(const ScenarioSource& source) {
  check_settings(source.set);
  return source.text ? InputNode::parse(*source.text, source.path, source.set)
                     : InputNode::load_file(source.path, source.set);
}

}  // namespace

Scenario load(const ScenarioSource& source) { return load_scenario(parsed(source), source.profile); }

std::string scenario_text(const ScenarioSource& source) {
  // Without settings, the user's own text (comments kept, locations exact); with them, the edited document.
  if (source.set.empty()) return source.text ? *source.text : read_text(source.path);
  return parsed(source).yaml_text();
}

bool is_service(const ScenarioSource& source) { return parsed(source).has("serving"); }

ServingPlan plan_serving(const ScenarioSource& source, const ServingPlanOptions& options) {
  const Scenario sc = load(source);
  if (!sc.serving) {
    throw InputError({source.path, 0, 0}, "serving", "not an inference service: the serving plan search needs a "
                                                     "serving: section");
  }
  return cs::plan_serving(sc, options);
}

nlohmann::ordered_json serving_plan_json(const ServingPlan& plan, const std::string& scenario_name) {
  using J = nlohmann::ordered_json;
  const auto entry = [](const ServingCandidate& c) {
    const Deployment& d = c.deployment;
    const bool chunked = c.engine.batching == Batching::chunked_prefill;
    return J{{"description", c.description},
             {"tp", d.tp},
             {"pp", d.pp},
             {"ep", d.ep},
             {"weights", std::string(to_string(d.weights))},
             {"kv_cache", std::string(to_string(d.kv_cache))},
             {"batching", std::string(batching_names().name(c.engine.batching))},
             {"max_seqs", c.engine.max_seqs},
             {"max_batched_tokens", chunked ? J(nullptr) : J(c.engine.max_batched_tokens)},
             {"token_budget", chunked ? J(c.engine.token_budget) : J(nullptr)},
             {"replicas", d.disaggregated() ? J(nullptr) : J(d.replicas)},
             {"prefill", d.disaggregated() ? J{{"replicas", d.prefill.replicas}, {"tp", d.pool(PoolRole::prefill).tp}}
                                           : J(nullptr)},
             {"decode", d.disaggregated() ? J{{"replicas", d.decode.replicas}, {"tp", d.pool(PoolRole::decode).tp}}
                                          : J(nullptr)},
             {"gpus", c.gpus},
             {"fits", c.fits},
             {"meets_slo", c.meets_slo},
             {"ttft_p99_s", c.ttft_p99_s},
             {"tpot_p99_s", c.tpot_p99_s},
             {"slo_attainment", c.slo_attainment},
             {"probe_requests", c.probe_requests},
             {"tokens_per_s", c.tokens_per_s},
             {"usd_per_gpu_hour", c.usd_per_gpu_hour},
             {"cost_usd_per_hour", c.cost_usd_per_hour},
             {"usd_per_million_tokens", c.usd_per_million_tokens},
             {"probes", c.probes},
             {"reason", c.reason},
             {"why_lost", c.why_lost}};
  };
  J j;
  j["format_version"] = 1;
  j["kind"] = "serving_plan";
  j["scenario"] = scenario_name;
  j["rate_per_s"] = plan.rate;
  j["max_gpus"] = plan.max_gpus;
  j["slo"] = {{"ttft_s", plan.slo.ttft.seconds()}, {"tpot_s", plan.slo.tpot.seconds()},
              {"attainment", plan.slo.attainment}};
  j["probes"] = plan.probes;
  j["search_s"] = plan.seconds;
  j["deployments"] = J::array();
  for (const ServingCandidate& c : plan.deployments) j["deployments"].push_back(entry(c));
  j["best"] = plan.found() ? entry(plan.deployments.front()) : J(nullptr);
  if (const auto& k = plan.best_check) {
    j["best_checked_whole"] = {{"slo_attainment", k->slo_attainment}, {"ttft_p99_s", k->ttft_p99_s},
                               {"tpot_p99_s", k->tpot_p99_s}, {"requests", k->requests},
                               {"duration_s", k->duration_s}};
  } else {
    j["best_checked_whole"] = nullptr;
  }
  j["no_plan_reason"] = plan.no_plan_reason();
  j["close_call"] = plan.close_call();
  return j;
}

nlohmann::ordered_json result_json(const Scenario& sc, const RunResult& r) {
  nlohmann::ordered_json j = to_json(sc, r);
  if (r.placement) {
    j["placement"] = {{"method", r.placement->method},
                      {"step_time_default_s", r.placement->step_time_default.seconds()},
                      {"step_time_s", r.placement->step_time.seconds()},
                      {"cost_default_byte_hops", r.placement->cost_default},
                      {"cost_byte_hops", r.placement->cost},
                      {"kept", r.placement->kept},
                      {"node_slots", r.placement->node_slots}};
  }
  return j;
}

ValidationReport validate(const std::vector<std::string>& files) {
  std::vector<CsvTable> tables;
  for (const std::string& f : files) tables.push_back(CsvTable::load(f));
  // A row that states no layout runs the fastest one the plan search finds. Bands rest on the batch's other
  // rows and on the shipped residuals of rows outside the batch (a small check file alone gives no band).
  const ResidualSet shipped = load_residual_set(data_path(kShippedBandBasis));
  ValidationReport out;
  out.rows = cs::validate(
      tables, kStepBandLevel, [](Scenario& sc, const PlanFilter& keep) { return choose_fastest_plan(sc, keep); },
      shipped.residuals);
  out.prior_problem = shipped.problem;
  return out;
}

std::string residuals_csv(const std::vector<ValidationRow>& rows, const std::vector<std::string>& comment) {
  std::ostringstream csv;
  write_residuals(csv, rows, comment);
  return csv.str();
}

nlohmann::ordered_json validation_json(const std::vector<ValidationRow>& rows) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& r : rows) {
    nlohmann::ordered_json e{{"row_id", r.id}, {"line", r.line}, {"source", r.source}, {"model", r.model},
                             {"gpus", r.gpus}};
    if (r.skipped) {
      e["skipped"] = *r.skipped;
    } else {
      e["quantity"] = r.quantity;
      e["predicted"] = r.predicted;
      e["measured"] = r.measured;
      e["error"] = r.error();
      e["assumptions"] = r.assumptions;
      e["predicted_step_s"] = r.predicted_step_s();
      e["breakdown"] = breakdown_json(r.step, r.sm_clock_mhz);  // the object `run --json` writes
      e["peak_memory_bytes"] = r.memory.total().value();
      e["memory_capacity_bytes"] = r.memory_capacity.value();
      e["memory"] = memory_json(r.memory);
      if (r.band.valid()) {
        e["band"] = {{"low", r.band.low}, {"high", r.band.high}, {"level", r.band.level}, {"basis", r.band.basis}};
      }
    }
    j.push_back(std::move(e));
  }
  return j;
}

TcoReport tco(Scenario sc, const std::string& pricebook) {
  if (!pricebook.empty()) {
    sc.pricebook = pricebook;
    check_price_references(sc);
  }
  if (!sc.serving) require_token_budget(sc);  // a service is priced over its simulated window
  const RunResult r = run_scenario(sc);
  if (!r.tco) {
    // run_scenario keeps the performance result when the cluster cannot be priced, with the reason as a
    // warning; pricing is what was asked for here, so that is bad input.
    std::string why = "the cluster cannot be priced";
    for (const auto& w : r.warnings) {
      if (w.rfind("no power or cost report: ", 0) == 0) why = w.substr(25);
    }
    throw InputError({sc.file, 0, 0}, "facility", why);
  }
  return *r.tco;
}

namespace {
/// Whether `source` is a schedule file (is_schedule_document: the test `clustersim sweep` applies to its base);
/// a document that does not parse is left to the scenario loader's located error.
bool is_schedule_source(const ScenarioSource& source) {
  try {
    return is_schedule_document(YAML::Load(source.text ? *source.text : read_text(source.path)));
  } catch (const YAML::Exception&) {
    return false;
  }
}

DesignReport design_schedule_source(const ScenarioSource& source, const DesignRequest& request, const DesignOptions& options) {
  if (!source.profile.empty()) {
    throw InputError({"--profile " + source.profile, 0, 0}, "profile",
                     "a schedule's scenarios name their own device profiles (cluster.profile in each)");
  }
  std::vector<Setting> set = source.set;
  if (request.gpus > 0) set.push_back({"cluster.gpus", std::to_string(request.gpus)});
  for (const Setting& s : set) {
    if (const auto why = check_value(InputKind::schedule, s.key, s.value)) {
      throw InputError({"--set " + s.key + "=" + s.value, 0, 0}, s.key, *why);
    }
  }
  const ScheduleConfig config = source.text ? parse_schedule(InputNode::parse(*source.text, source.path, set), source.path)
                                            : load_schedule_file(source.path, set);
  return design_schedule(config, options);
}
}  // namespace

DesignReport design(const ScenarioSource& source, const DesignRequest& request) {
  DesignOptions options;
  if (request.budget_usd) options.budget = Dollars{*request.budget_usd};
  if (request.power_kw) options.power = Watts{*request.power_kw * 1e3};
  options.threads = request.threads;
  if (is_schedule_source(source)) return design_schedule_source(source, request, options);
  ScenarioSource src = source;
  if (request.gpus > 0) src.set.push_back({"cluster.gpus", std::to_string(request.gpus)});
  const std::string text = scenario_text(src);
  const std::string name = source.path;
  const std::string profile = source.profile;
  (void)load(src);  // located errors for the settings before any candidate runs
  return design_fabrics([&] { return load_scenario_text(text, name, profile); }, options);
}

namespace {
/// `j`'s scalars as (dotted key, text) pairs, in order.
void flatten(const nlohmann::ordered_json& j, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>& out) {
  for (const auto& [key, value] : j.items()) {
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object()) flatten(value, path, out);
    else if (value.is_string()) out.emplace_back(path, value.get<std::string>());
    else out.emplace_back(path, value.dump());
  }
}
}  // namespace

std::vector<std::pair<std::string, std::string>> plan_settings(const Plan& plan) {
  nlohmann::ordered_json j = candidate_json(plan);
  j.erase("peak_memory_bytes");  // a result, not a setting
  std::vector<std::pair<std::string, std::string>> out;
  flatten(j, "", out);
  return out;
}

}  // namespace cs::api
