// The public API of clustersim: the one header the applications include - the CLI (sim/cli), the desktop planner
// (gui/), the sweep and plan-search runners, and the benches (bench/). A thin layer over the library, as
// SimGrid's s4u is over its kernel: load and check inputs, run a scenario, read its result, render it, and
// describe every input parameter. Everything here is safe to call from several threads at once on different
// scenarios (nothing shared is mutable). Sweeps (sweep_job.hpp), results databases (results_table.hpp) and the
// kernel and collective probes (microbench.hpp) are declared in headers of their own, included here; so is
// write_file_atomically (sim/core), which every command uses to write its outputs.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/api/microbench.hpp"
#include "sim/api/results_table.hpp"
#include "sim/api/sweep_job.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/design/design_report.hpp"
#include "sim/design/placement_optimiser.hpp"
#include "sim/facility/tco_report.hpp"
#include "sim/input/param_spec.hpp"
#include "sim/input/yaml_edit.hpp"
#include "sim/replay/step_replay.hpp"
#include "sim/report/json_result.hpp"
#include "sim/report/param_docs.hpp"
#include "sim/report/text_summary.hpp"
#include "sim/report/trace_writer.hpp"
#include "sim/schedule/schedule_report.hpp"
#include "sim/scenario/runner.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/validation/validation.hpp"
#include "sim/search/plan_space.hpp"
#include "sim/search/search_scenario.hpp"
#include "sim/search/serving_plan.hpp"

namespace cs::api {

/// clustersim's version ("0.1.0").
[[nodiscard]] std::string version();

/// The kinds of input file clustersim reads, each with a declared schema.
enum class InputKind { scenario, topology, profile, sweep, schedule, framework };
/// "scenario", ...
[[nodiscard]] std::string_view to_string(InputKind k);
[[nodiscard]] std::optional<InputKind> parse_input_kind(std::string_view s);

/// Every key of a kind of input file: key, type and unit, default, range, allowed names and help.
[[nodiscard]] const ParamSection& schema(InputKind kind);
/// The JSON Schema of a kind of file (for editors; `clustersim schema KIND`).
[[nodiscard]] nlohmann::ordered_json json_schema(InputKind kind);
/// The Markdown key table of a whole kind of file (`clustersim schema KIND --markdown`).
[[nodiscard]] std::string schema_markdown(InputKind kind);
/// The parameter `dotted_key` ("facility.cooling.pue") of a kind of file, or nullptr when no such key exists.
[[nodiscard]] const ParamSpec* find_param(InputKind kind, std::string_view dotted_key);
/// The message a file would get for `text` as the value of `dotted_key` ("must lie in [1, 3]"), or nullopt when
/// the value is valid. Unknown keys get "unknown key". This checks the value alone; checks across keys (that
/// tp*pp*dp*cp equals the GPUs, say) need the whole scenario: load_scenario_text.
[[nodiscard]] std::optional<std::string> check_value(InputKind kind, std::string_view dotted_key,
                                                     std::string_view text);

/// The Markdown key table of `name`: "KIND" or "KIND/section.path" ("scenario/facility.cooling"). Throws
/// std::invalid_argument for an unknown kind or section.
[[nodiscard]] std::string param_table_markdown(const std::string& name);
/// `doc` with every `<!-- params: NAME -->` ... `<!-- /params -->` block re-rendered from the declarations.
[[nodiscard]] std::string update_param_docs(const std::string& doc);

/// A shared cluster over time (`clustersim schedule`, docs/schedule.md): the schedule file at `path`, with
/// `settings` written over its keys (`--set policy=tidal`), loaded with every scenario it names, its jobs and
/// services priced and the cluster simulated. Render it with schedule_json, schedule_summary, schedule_trace.
/// Throws InputError located at the schedule's key (or the setting) for bad input.
[[nodiscard]] ScheduleRun schedule(const std::string& path, const std::vector<Setting>& settings = {});

/// Thrown by run() and search_plans() when their cancel flag was set while they ran.
struct Cancelled : std::exception {
  [[nodiscard]] const char* what() const noexcept override { return "cancelled"; }
};

/// A scenario to load: a file (or YAML text held in memory), with settings written over its values and its
/// device profile replaced. The CLI's `run`, `tco` and `plan`, the planner and Python all load through this.
struct ScenarioSource {
  std::string path;                 ///< the file; with `text`, only the name that messages use
  std::optional<std::string> text;  ///< YAML held in memory (the planner's editor; Python's dict, as JSON)
  std::vector<Setting> set;         ///< dotted keys written over the file's values (`--set cluster.gpus=512`)
  std::string profile;              ///< a profile name or file replacing cluster.profile; empty: the scenario's
};

/// The scenario of `source`, checked. Each setting is first checked alone against its key's declaration (an
/// unknown key or a bad value fails at "--set KEY=VALUE"), then the whole scenario as a file would be. Throws
/// InputError.
[[nodiscard]] Scenario load(const ScenarioSource& source);
/// The YAML text of `source` with its settings applied (the file's own text when there are none): what a
/// plan search's replay threads each load again.
[[nodiscard]] std::string scenario_text(const ScenarioSource& source);

/// Options of one run.
struct RunOptions {
  /// Receive every span of the replayed step (e.g. a TraceWriter for the timeline).
  std::vector<ReplayObserver*> observers;
  /// Set it (from another thread) to stop the run soon; run() then throws Cancelled.
  const std::atomic<bool>* cancel = nullptr;
  /// When set, receives the replayed step as Chrome/Perfetto trace-event JSON (`clustersim run --trace`).
  std::string* trace_json = nullptr;
};

/// Simulates `sc` (run_scenario with cancellation); with parallelism.placement: optimise, also at the optimised
/// node positions, keeping the faster (RunResult::placement says which).
[[nodiscard]] RunResult run(const Scenario& sc, const RunOptions& options = {});

/// The document `clustersim run --json` writes: step time, throughput, MFU, memory, power, TCO, ... in SI
/// numbers (docs/scenario.md, "Result").
[[nodiscard]] nlohmann::ordered_json result_json(const Scenario& sc, const RunResult& r);

/// The bill of materials, power, reliability and cost of ownership of a scenario with a token budget,
/// priced from `pricebook` (empty: the scenario's, else data/pricebook.yaml). Throws InputError when the
/// scenario has no token budget or its cluster cannot be priced (a node no price-book entry models).
[[nodiscard]] TcoReport tco(Scenario sc, const std::string& pricebook = "");

/// A training plan the search chooses: parallelism (tp, cp, pp, virtual stages, dp, ep, ZeRO stage, schedule,
/// sequence parallelism), micro-batch, recompute and overlap, with its peak memory per GPU (memory model).
using Plan = PlanCandidate;

/// Options of one plan search.
struct SearchOptions {
  int top_k = 10;   ///< plans replayed in full from the head of the screened ranking (>= 1)
  int sample = 10;  ///< further plans spread over the screened ranking, replayed for the rank correlation
  int threads = 0;  ///< replay threads (0: all cores)
  /// Set it (from another thread) to stop the search soon; search_plans() then throws Cancelled.
  const std::atomic<bool>* cancel = nullptr;
  /// Called with (plans replayed, plans to replay) when the screen is done and after each replay, from the
  /// search's worker threads (never two calls at once): forward it to a GUI thread, do not touch widgets.
  std::function<void(std::size_t done, std::size_t total)> progress;
};

/// One replayed plan of the ranking.
struct RankedPlan {
  Plan plan;
  std::string description;     ///< "tp8 cp1 pp8 vpp4 dp16 mb1 selective zero1 overlap grad+param"
  std::size_t screen_rank = 0; ///< 1-based place in the screened ranking
  double screened_step_s = 0;  ///< the closed-form screen's step time
  double step_s = 0;           ///< the replayed (event-driven) step time
  double mfu = 0;              ///< replayed, in [0, 1]
  Bytes memory;                ///< peak per GPU (the replay's memory model)
  bool fits_in_memory = true;
  std::string why_lost;        ///< why it is slower than the plan ranked above it; empty for the first
  std::optional<ErrorBand> band;  ///< the replayed step time's error band (validation residuals)
};

/// The outcome of a plan search: the replayed top plans, best first, and how the search went.
struct PlanRanking {
  std::vector<RankedPlan> plans;       ///< best replayed step time first; plans that do not fit rank last
  std::vector<RankedPlan> sampled;     ///< every replayed plan (top K and the correlation sample), by screen rank
  std::int64_t layouts = 0;            ///< (tp, cp, pp, dp) layouts that divide the GPUs and the model
  std::int64_t enumerated = 0;         ///< plans that divide evenly
  std::int64_t out_of_memory = 0;      ///< of those, pruned by the memory model
  std::int64_t screened = 0;           ///< plans screened (enumerated - out of memory)
  std::size_t replayed = 0;            ///< plans replayed in full (top K and the correlation sample)
  double spearman = 0, kendall = 0;    ///< screen order vs replay order over the replayed plans
  double screen_s = 0, replay_s = 0;   ///< wall time of the two stages
  std::string no_plan_reason;          ///< why `plans` is empty; empty otherwise
  /// Why the best plan runs a zero-bubble schedule or does not (SearchResult::zero_bubble_note); empty without plans.
  std::string zero_bubble_note;
  /// What was searched: the scenario's and its model's names, its GPUs and device profile.
  std::string scenario_name, model_name, profile;
  int gpus = 0;
};

/// Searches the training plan of the scenario in `yaml_text` (`name` stands in for its file name in messages;
/// its own plan is ignored, and `parallelism: search` is accepted): screens every valid plan in closed form,
/// replays the best top_k in full and ranks them (sim/search/plan_search.hpp). Each replay thread loads its own
/// copy of the scenario from the text, so nothing mutable is shared. Throws InputError for a scenario that does
/// not load, Cancelled when cancelled.
[[nodiscard]] PlanRanking search_plans(const std::string& yaml_text, const std::string& name,
                                       const SearchOptions& options = {});

/// The ranking as `clustersim plan --json` writes it (counts, timings, every replayed plan with its settings).
[[nodiscard]] nlohmann::ordered_json ranking_json(const PlanRanking& ranking, const std::string& scenario_name);

/// The serving plan search's options and outcome (sim/search/serving_plan.hpp): candidate deployments (TP, EP,
/// PP where the weights need it, weight precision, engine limits), each at the fewest replicas that meet the
/// scenario's SLO at its rate, ranked by cost per hour.
using ServingPlanOptions = cs::ServingPlanOptions;
using ServingPlan = cs::ServingPlan;
using ServingCandidate = cs::ServingCandidate;
using cs::replica_count;

/// True when the scenario of `source` is an inference service (it has a `serving:` section), so that `plan`
/// sizes deployments rather than training plans. Throws InputError for a file that does not parse.
[[nodiscard]] bool is_service(const ScenarioSource& source);

/// The cheapest deployment of the service in `source` that meets its SLO (serving.slo.ttft, tpot and
/// attainment) at its request rate on at most its cluster's GPUs, with the ranking of every candidate and why
/// each lost to the one above (`clustersim plan` on a serving scenario). Throws InputError for a scenario that
/// does not load, is not a service, or whose load is not Poisson arrivals at a rate.
[[nodiscard]] ServingPlan plan_serving(const ScenarioSource& source, const ServingPlanOptions& options = {});

/// The serving ranking as `clustersim plan --json` writes it: `deployments` (best first, each with
/// description, tp, pp, ep, weights, replicas, gpus, ttft_p99_s, tpot_p99_s, slo_attainment, cost_usd_per_hour,
/// usd_per_million_tokens, fits, why_lost, ...), `best` (the first deployment when it meets the SLO, else null)
/// and `no_plan_reason`.
[[nodiscard]] nlohmann::ordered_json serving_plan_json(const ServingPlan& plan, const std::string& scenario_name);

/// The rows of validation files (`clustersim validate`): each row's scenario simulated and compared with its
/// measurement; a row that states no layout runs the fastest one the plan search finds; bands rest on the
/// files' other rows and the shipped residuals of rows outside them. Throws InputError for a bad file.
struct ValidationReport {
  std::vector<ValidationRow> rows;  ///< in the files' order
  /// Empty when the bands also rest on the shipped residuals of rows outside these files; else why they do not.
  std::string prior_problem;
};
[[nodiscard]] ValidationReport validate(const std::vector<std::string>& files);
/// The step-time residuals of the predicted rows as the CSV that `error_band_basis` names (`--residuals-out`),
/// with `comment` lines ahead of the header.
[[nodiscard]] std::string residuals_csv(const std::vector<ValidationRow>& rows, const std::vector<std::string>& comment);
/// The rows as `clustersim validate --json` writes them.
[[nodiscard]] nlohmann::ordered_json validation_json(const std::vector<ValidationRow>& rows);

/// The scenario keys that, written into a scenario (dotted key, value text as a file would hold it), make it
/// run `plan`: parallelism.* and the training.* keys the plan sets (micro-batch, recompute, overlap). The
/// search's plans leave the other parallelism keys (expert_tp, first_stage_layers, ...) at their defaults, so
/// replace the scenario's `parallelism:` section as a whole with these keys.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> plan_settings(const Plan& plan);

/// Options of `clustersim design`.
struct DesignRequest {
  int gpus = 0;                    ///< the build's GPU count (0: the scenario's cluster.gpus)
  std::optional<double> budget_usd;
  std::optional<double> power_kw;  ///< IT peak power limit
  int threads = 0;                 ///< candidates at once (0: all cores)
};

/// Every candidate fabric for the scenario's job at `request.gpus` GPUs, built, simulated and priced, with the
/// Pareto front and the best under the limits (sim/design, docs/design.md). Throws InputError for a scenario
/// that does not load, lacks a token budget, or a GPU count that does not fit its plan.
/// A schedule file (told from a scenario as `clustersim sweep` tells its base: is_schedule_document) is the
/// workload instead: each candidate becomes the cluster's fabric and the whole schedule is simulated on it
/// (DesignReport::workload "schedule"); `source.set` are schedule keys, `request.gpus` its cluster.gpus, and a
/// `source.profile` is an error (the schedule's scenarios name theirs).
[[nodiscard]] DesignReport design(const ScenarioSource& source, const DesignRequest& request);

}  // namespace cs::api
