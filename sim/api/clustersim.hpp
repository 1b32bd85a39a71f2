// The public API of clustersim: the one header the applications include - the CLI (sim/cli), the desktop planner
// (gui/), the sweep and plan-search runners, and the benches (bench/). A thin layer over the library, as
// SimGrid's s4u is over its kernel: load and check inputs, run a scenario, read its result, render it, and
// describe every input parameter. Everything here is safe to call from several threads at once on different
// scenarios (nothing shared is mutable).
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "sim/input/param_spec.hpp"
#include "sim/replay/step_replay.hpp"
#include "sim/report/json_result.hpp"
#include "sim/report/param_docs.hpp"
#include "sim/report/text_summary.hpp"
#include "sim/report/trace_writer.hpp"
#include "sim/scenario/runner.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs::api {

/// clustersim's version ("0.1.0").
[[nodiscard]] std::string version();

/// The kinds of input file clustersim reads, each with a declared schema.
enum class InputKind { scenario, topology, profile, sweep };
/// "scenario", ...
[[nodiscard]] std::string_view to_string(InputKind k);
[[nodiscard]] std::optional<InputKind> parse_input_kind(std::string_view s);
/// Registers the schema of sweep files (owned by the sweep layer, which sits above this API's core).
void register_sweep_schema(const ParamSection& schema);

/// Every key of a kind of input file: key, type and unit, default, range, allowed names and help.
[[nodiscard]] const ParamSection& schema(InputKind kind);
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

/// Thrown by run() when its cancel flag was set while it ran.
struct Cancelled : std::exception {
  [[nodiscard]] const char* what() const noexcept override { return "cancelled"; }
};

/// Options of one run.
struct RunOptions {
  /// Receive every span of the replayed step (e.g. a TraceWriter for the timeline).
  std::vector<ReplayObserver*> observers;
  /// Set it (from another thread) to stop the run soon; run() then throws Cancelled.
  const std::atomic<bool>* cancel = nullptr;
};

/// Simulates `sc` (run_scenario with cancellation).
[[nodiscard]] RunResult run(const Scenario& sc, const RunOptions& options = {});

}  // namespace cs::api
