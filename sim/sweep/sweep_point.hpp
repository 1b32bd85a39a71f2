// Loading one sweep point through the scenario loader, with the loader's errors moved to where the sweep
// file wrote the value responsible (so "cluster.gpus: [8, 3000]" is reported at the 3000).
#pragma once

#include <string>

#include "sim/schedule/schedule_config.hpp"
#include "sim/search/search_scenario.hpp"
#include "sim/sweep/sweep_expansion.hpp"

namespace cs {

/// The name a point's scenario is loaded under ("sweep.yaml#3"); it appears as scenario_file in results.
[[nodiscard]] std::string point_source_name(const SweepSpec& spec, const SweepPoint& point);

/// Loads the point (accepting `parallelism: search`). Throws InputError located in the sweep file: at the
/// value of the axis (or `set` key) whose key path matches the loader's error, else at the point's first
/// axis value, naming the point's values.
[[nodiscard]] SearchableScenario load_point(const SweepSpec& spec, const SweepPoint& point);

/// Loads a point of a sweep over a schedule file (SweepSpec::schedule): its relative paths resolve against the
/// base file; errors are located as load_point's.
[[nodiscard]] ScheduleConfig load_schedule_point(const SweepSpec& spec, const SweepPoint& point);

/// The KeyCheck of the base's parameter table: the scenario's (below) or the schedule file's.
[[nodiscard]] KeyCheck base_key_check(const SweepSpec& spec);

/// The KeyCheck of the scenario parameter table (scenario_schema()): a key path must name a declared parameter
/// or section of a scenario file.
[[nodiscard]] KeyCheck scenario_key_check();

/// Loads every point before anything runs, on `jobs` threads; the failure of the lowest point index throws as
/// load_point does.
void check_all_points(const SweepSpec& spec, const std::vector<SweepPoint>& points, int jobs = 1);

}  // namespace cs
