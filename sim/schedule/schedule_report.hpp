// A schedule's result as JSON (stable keys for scripts, docs/schedule.md), as a text summary, and as a
// Chrome/Perfetto trace: one track per node with the jobs' and replicas' intervals, and counters for the
// allocated GPUs and the facility power by hour.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/schedule/schedule_model.hpp"

namespace cs {

[[nodiscard]] nlohmann::ordered_json schedule_json(const ScheduleRun& run);
[[nodiscard]] std::string schedule_summary(const ScheduleRun& run);
[[nodiscard]] std::string schedule_trace(const ScheduleRun& run);

}  // namespace cs
