#include "sim/api/clustersim.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "sim/hardware/profile_params.hpp"
#include "sim/search/plan_search.hpp"
#include "sim/scenario/scenario_params.hpp"
#include "sim/topology/topology_params.hpp"

namespace cs::api {

std::string version() { return CS_VERSION; }

std::string_view to_string(InputKind k) {
  switch (k) {
    case InputKind::scenario: return "scenario";
    case InputKind::topology: return "topology";
    case InputKind::profile: return "profile";
    case InputKind::sweep: return "sweep";
  }
  return "?";
}

std::optional<InputKind> parse_input_kind(std::string_view s) {
  for (InputKind k : {InputKind::scenario, InputKind::topology, InputKind::profile, InputKind::sweep}) {
    if (to_string(k) == s) return k;
  }
  return std::nullopt;
}

namespace {
std::mutex sweep_mutex;
const ParamSection* sweep_schema = nullptr;
const ParamSection& empty_sweep_schema() {
  static const ParamSection s{.key = "", .help = "sweep files: the sweep layer is not linked into this program"};
  return s;
}
}  // namespace

void register_sweep_schema(const ParamSection& schema) {
  std::lock_guard lock(sweep_mutex);
  sweep_schema = &schema;
}

const ParamSection& schema(InputKind kind) {
  switch (kind) {
    case InputKind::scenario: return scenario_schema();
    case InputKind::topology: return topology_schema();
    case InputKind::profile: return profile_schema();
    case InputKind::sweep: {
      std::lock_guard lock(sweep_mutex);
      return sweep_schema != nullptr ? *sweep_schema : empty_sweep_schema();
    }
  }
  return scenario_schema();
}

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
  return run_scenario(sc, observers);
}

PlanRanking search_plans(const std::string& yaml_text, const std::string& name, const SearchOptions& options) {
  cs::SearchOptions opt;
  opt.top = std::max(1, options.top_k);
  opt.sample = std::max(0, options.sample);
  opt.threads = options.threads;
  opt.cancel = options.cancel;
  opt.progress = options.progress;
  SearchResult r;
  try {
    r = cs::search_plans(load_searchable_scenario(yaml_text, name), yaml_text, name, opt);
  } catch (const SearchCancelled&) {
    throw Cancelled{};
  }
  PlanRanking out;
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
  for (std::size_t i = 0; i < r.replayed.size(); ++i) {
    const ReplayedPlan& p = r.replayed[i];
    out.plans.push_back({.plan = p.candidate,
                         .description = describe(p.candidate),
                         .screen_rank = p.screen_rank + 1,
                         .screened_step_s = p.screen.step.seconds(),
                         .step_s = p.result.step.step_time.seconds(),
                         .mfu = p.result.mfu,
                         .memory = p.result.memory.total(),
                         .fits_in_memory = p.result.fits_in_memory,
                         .why_lost = i == 0 ? std::string() : why_slower(p, r.replayed[i - 1])});
  }
  return out;
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
