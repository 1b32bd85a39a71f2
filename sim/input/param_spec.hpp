// One declaration per input parameter (STYLE.md rule 10): its key, value type and unit, default, range, allowed
// names and help. ParamTable<S> (param_table.hpp) binds these declarations to a struct's fields and reads them;
// everything else that needs to know a parameter - the docs' key tables, the JSON Schema of each input file,
// sweep-axis checks and the planner's forms - reads the same ParamSection tree built from them.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cs {

class InputNode;

/// What a parameter's value is. Unit types take a number with a unit ("400Gbps"); see units.hpp.
/// `list`: a YAML sequence; `mapping`: a YAML mapping of the user's own keys (`set:`, `quotas:`);
/// `mapping_or_list`: either (a sweep's `axes`).
enum class ParamType { integer, real, boolean, text, choice, time, bytes, bandwidth, flops, flop_rate, watts,
                       joules, dollars, dollar_rate, list, mapping, mapping_or_list };

/// "integer", "time", ...: the type's name in docs and messages.
[[nodiscard]] std::string_view to_string(ParamType t);
/// An example of a valid value of the type ("0.5us", "400Gbps"); empty for types without a unit.
[[nodiscard]] std::string_view unit_example(ParamType t);
/// True for the types written with a unit.
[[nodiscard]] bool has_unit(ParamType t);

struct ParamSpec {
  std::string key;            ///< the key inside its section ("pue")
  ParamType type = ParamType::text;
  std::string help;           ///< one sentence: what it means, where a default or a number comes from
  std::string default_text;   ///< the default as a user would write it; empty when required or none
  bool required = false;
  std::optional<double> min;  ///< inclusive lower bound, in the type's SI base unit (s, B, B/s, W, USD, ...)
  std::optional<double> max;  ///< inclusive upper bound
  bool min_exclusive = false; ///< the value must be above `min` (e.g. "must be positive")
  std::vector<std::string> choices;  ///< allowed names (ParamType::choice); list elements' names for lists
  /// Parses one value of this parameter and checks its range; throws InputError located at the node, with the
  /// same message a scenario file would get. Empty for parameters whose value is a nested structure.
  std::function<void(const InputNode&)> check;

  /// The message for `text` as this parameter's value, or nullopt when it is valid. `path` names the key in
  /// the message ("facility.cooling.pue").
  [[nodiscard]] std::optional<std::string> check_text(std::string_view text, const std::string& path) const;
};

/// The required `format_version` key of a `kind` of file ("scenario", "topology", ...): an integer that must be
/// one of `accepted` (ascending). A refused version gets "unsupported KIND format_version V (this build reads
/// 1 and 2)" and `see` appended when given ("; see docs/topology.md").
[[nodiscard]] ParamSpec format_version_spec(const std::string& kind, std::vector<int> accepted,
                                            const std::string& see = "");

/// A mapping of an input file: its parameters and its nested mappings, in declaration order.
struct ParamSection {
  std::string key;            ///< empty for a file's top level
  std::string help;
  bool required = false;      ///< the section must be present
  bool list = false;          ///< a list of entries, each a mapping of these keys (a schedule's jobs)
  std::vector<ParamSpec> params;
  std::vector<ParamSection> sections;

  /// The parameter at `dotted_path` ("cooling.pue") under this section, or nullptr.
  [[nodiscard]] const ParamSpec* find_param(std::string_view dotted_path) const;
  /// The section at `dotted_path` ("facility.cooling"), or nullptr; "" is this section.
  [[nodiscard]] const ParamSection* find_section(std::string_view dotted_path) const;
  /// Every key this section accepts (its parameters' and its sections' keys).
  [[nodiscard]] std::vector<std::string> keys() const;
};

}  // namespace cs
