#include "sim/sweep/sweep_point.hpp"

#include "sim/scenario/scenario_params.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

namespace cs {
namespace {

/// How well an error at `error_key` is explained by a value written at `key`: the length of the shared
/// dotted prefix when one path contains the other, -1 otherwise.
int match(const std::string& key, const std::string& error_key) {
  const auto within = [](const std::string& outer, const std::string& inner) {
    return inner == outer || (inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 &&
                              (inner[outer.size()] == '.' || inner[outer.size()] == '['));
  };
  if (within(key, error_key)) return static_cast<int>(key.size());
  if (within(error_key, key)) return static_cast<int>(error_key.size());
  return -1;
}

}  // namespace

std::string point_source_name(const SweepSpec& spec, const SweepPoint& point) {
  return std::filesystem::path(spec.file).filename().string() + "#" + std::to_string(point.index);
}

namespace {

/// `load()`, its InputError moved to where the sweep file wrote the value responsible.
template <class Load>
auto blaming_the_sweep(const SweepSpec& spec, const SweepPoint& point, Load load) -> decltype(load()) {
  try {
    return load();
  } catch (const InputError& e) {
    const std::string what = e.where().file == point_source_name(spec, point) ? e.message() : e.what();
    const std::string context = "point " + std::to_string(point.index) + " (" + point.label + "): ";
    int best = -1;
    const PointValue* blamed = nullptr;
    for (const PointValue& v : point.values) {
      const int m = match(v.key, e.key_path());
      if (m > best) {
        best = m;
        blamed = &v;
      }
    }
    const SweepSetting* set = nullptr;
    for (const SweepSetting& s : spec.set) {
      const int m = match(s.key, e.key_path());
      if (m > best) {
        best = m;
        set = &s;
      }
    }
    if (set) throw InputError(set->where, "set." + set->key, context + e.key_path() + ": " + what);
    if (blamed && best >= 0) throw InputError(blamed->where, "axes." + blamed->key, context + e.key_path() + ": " + what);
    const SourceLocation where = point.values.empty() ? spec.base_where : point.values.front().where;
    throw InputError(where, e.key_path(), context + what);
  }
}

}  // namespace

SearchableScenario load_point(const SweepSpec& spec, const SweepPoint& point) {
  return blaming_the_sweep(spec, point, [&] { return load_searchable_scenario(point.yaml, point_source_name(spec, point)); });
}

ScheduleConfig load_schedule_point(const SweepSpec& spec, const SweepPoint& point) {
  return blaming_the_sweep(spec, point, [&] {
    return parse_schedule(InputNode::parse(point.yaml, point_source_name(spec, point)), spec.base_path);
  });
}

KeyCheck base_key_check(const SweepSpec& spec) {
  if (!spec.schedule) return scenario_key_check();
  return [](std::string_view key) -> std::optional<std::string> {
    const ParamSection& schema = schedule_schema();
    if (schema.find_param(key) != nullptr || schema.find_section(key) != nullptr) return std::nullopt;
    return "not a schedule key (docs/schedule.md lists them)";
  };
}

KeyCheck scenario_key_check() {
  return [](std::string_view key) -> std::optional<std::string> {
    const ParamSection& schema = scenario_schema();
    if (schema.find_param(key) != nullptr || schema.find_section(key) != nullptr) return std::nullopt;
    return "not a scenario key (docs/scenario.md lists them; `clustersim schema scenario` prints them)";
  };
}

void check_all_points(const SweepSpec& spec, const std::vector<SweepPoint>& points, int jobs) {
  // Points load independently; the error reported is the one of the lowest point index, as on one thread.
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::size_t first_bad = points.size();
  std::exception_ptr error;
  const auto work = [&] {
    for (std::size_t i = next++; i < points.size(); i = next++) {
      try {
        if (spec.schedule) {
          (void)load_schedule_point(spec, points[i]);
        } else {
          (void)load_point(spec, points[i]);
        }
      } catch (...) {
        const std::lock_guard lock(mu);
        if (i < first_bad) {
          first_bad = i;
          error = std::current_exception();
        }
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    for (int j = 0; j < std::max(1, std::min<int>(jobs, static_cast<int>(points.size()))); ++j) pool.emplace_back(work);
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace cs
