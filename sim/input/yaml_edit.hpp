// Edits of a YAML document by dotted key ("facility.cooling.pue"): the one implementation behind the CLI's
// `--set KEY=VALUE`, the planner's forms and sweep points. Untouched nodes keep their marks, so the loader's
// file:line:column still point into the user's text for everything the edits did not write.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cs {

/// A dotted key and the value text a file would hold there ("cluster.gpus", "512").
struct Setting {
  std::string key;
  std::string value;
};

/// "KEY=VALUE" -> Setting; nullopt when there is no '=' or the key is empty.
[[nodiscard]] std::optional<Setting> parse_setting(std::string_view text);
/// "cluster.gpus" -> {"cluster", "gpus"}.
[[nodiscard]] std::vector<std::string> split_dotted_key(std::string_view key);

/// The value text as a node: a text starting with '[' or '{' is YAML flow (kept as a plain string when it does
/// not parse, so the loader reports it located); anything else is a plain scalar.
[[nodiscard]] YAML::Node value_node(const std::string& text);

/// What a setting may do to a key on its path that holds a scalar or a list (`parallelism: search` under
/// `parallelism.tp`): refuse (the CLI and sweeps: the message names the key) or replace it with a mapping (the
/// planner's forms, where the user is editing field by field).
enum class OnScalarPath { refuse, replace };

/// Writes `value` at `key` under `root`, creating mappings on the way. Returns nullopt, or (refuse) the dotted
/// prefix that holds a non-mapping, with that value in flow style: {"parallelism", "search"}.
[[nodiscard]] std::optional<std::pair<std::string, std::string>> set_dotted(YAML::Node root, const std::string& key,
                                                                          const YAML::Node& value,
                                                                          OnScalarPath policy = OnScalarPath::refuse);
/// Removes `key` and then any mapping it leaves empty; true when something was removed.
bool remove_dotted(YAML::Node root, const std::string& key);
/// The node at `key`, or nullopt.
[[nodiscard]] std::optional<YAML::Node> find_dotted(const YAML::Node& root, const std::string& key);
/// A node in YAML flow style ("[a, b]", "{dp: 8}").
[[nodiscard]] std::string flow_text(const YAML::Node& n);

}  // namespace cs
