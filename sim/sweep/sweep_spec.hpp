// A sweep file: a base scenario and axes of scenario key paths with lists of values (docs/sweeps.md).
//
//   format_version: 1
//   name: H100 vs H200 vs B200
//   base: ../gpt3-175b-1024xh100.yaml      # relative to the sweep file
//   set: {training.token_budget: 300e9}     # optional edits applied to every point
//   axes:                                   # a mapping: every key is its own axis, all crossed
//     cluster.profile: [h100-sxm, h200, b200]
//     facility.cooling.kind: [air, liquid]
//   # or a list of groups: the keys inside one group move together (zipped), the groups are crossed
//   # axes:
//   #   - {cluster.gpus: [256, 1024], parallelism.dp: [4, 16]}
//   #   - {cluster.profile: [h100-sxm, b200]}
//
// Values are YAML nodes (a scalar with its unit, a list, a whole mapping, or `search` for parallelism); each
// replaces (or adds) the node at its key path in a copy of the base scenario's YAML tree.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "sim/core/error.hpp"

namespace cs {

/// One axis: a key path and its values, with where each was written.
struct SweepAxis {
  std::string key;
  SourceLocation key_where;
  std::vector<YAML::Node> values;
  std::vector<SourceLocation> value_where;
};

/// Axes that move together (zipped); all have the same number of values.
struct SweepGroup {
  std::vector<SweepAxis> axes;
  [[nodiscard]] std::size_t size() const { return axes.empty() ? 0 : axes.front().values.size(); }
};

/// A fixed edit applied to every point.
struct SweepSetting {
  std::string key;
  SourceLocation where;
  YAML::Node value;
};

struct SweepSpec {
  std::string file;
  std::string name;
  std::string description;
  std::string base_path;      ///< resolved against the sweep file's directory
  SourceLocation base_where;
  YAML::Node base;            ///< the base scenario's parsed YAML
  bool schedule = false;      ///< the base is a schedule file (is_schedule_document): points run `schedule`
  std::vector<SweepSetting> set;
  std::vector<SweepGroup> groups;  ///< crossed with each other, first group slowest

  /// Points in the full expansion (product of the group sizes).
  [[nodiscard]] std::size_t point_count() const;
};

/// Reads and checks the sweep file (structure, keys, non-empty axes, equal lengths inside a group, a base
/// scenario that parses as YAML). Throws InputError "file:line:column: key: what".
[[nodiscard]] SweepSpec load_sweep(const std::string& path);
/// The same for sweep YAML held in memory; `dir` resolves a relative `base:`.
[[nodiscard]] SweepSpec parse_sweep(const std::string& text, const std::string& name, const std::string& dir);

}  // namespace cs
