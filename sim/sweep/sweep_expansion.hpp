// Expansion of a sweep into points: each point is the base scenario's YAML tree with the sweep's fixed
// settings and one value of every axis written in, emitted as canonical YAML (comments dropped, keys in the
// base file's order) and identified by the hash of that text.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/sweep/sweep_spec.hpp"

namespace cs {

/// One axis value of a point, with where the sweep file wrote it.
struct PointValue {
  std::string key;
  std::string text;  ///< the value as flow YAML ("1024", "400Gbps", "{tp: 8, pp: 8}")
  SourceLocation where;
};

struct SweepPoint {
  std::int64_t index = 0;
  std::vector<PointValue> values;
  std::string label;      ///< "key=value, key=value"
  std::string yaml;       ///< the canonical expanded scenario
  std::string hash;       ///< content_hash(yaml)
  [[nodiscard]] std::string axes_json() const;
};

/// FNV-1a 64-bit of `text`, as 16 lower-case hex digits. Identifies a point in the results database: two
/// points with the same canonical scenario are the same point.
[[nodiscard]] std::string content_hash(std::string_view text);

/// A check of a key path before any point is built: returns an error message for a key the scenario does not
/// have, nullopt when it is known. The scenario loader rejects unknown keys anyway (each point is loaded
/// before anything runs); a parameter table can be plugged in here to say so earlier and faster.
using KeyCheck = std::function<std::optional<std::string>(std::string_view key_path)>;

/// Runs `check` over every `set` and axis key; throws InputError at the key's location in the sweep file.
void check_sweep_keys(const SweepSpec& spec, const KeyCheck& check);

/// Every point, in order (the last group varies fastest). Throws InputError (located at the axis key) when a
/// key path runs through a value that is not a mapping in the base scenario.
[[nodiscard]] std::vector<SweepPoint> expand_sweep(const SweepSpec& spec);

}  // namespace cs
