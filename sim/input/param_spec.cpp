#include "sim/input/param_spec.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/input/input_node.hpp"

namespace cs {

std::string_view to_string(ParamType t) {
  switch (t) {
    case ParamType::integer: return "integer";
    case ParamType::real: return "number";
    case ParamType::boolean: return "boolean";
    case ParamType::text: return "string";
    case ParamType::choice: return "choice";
    case ParamType::time: return "time";
    case ParamType::bytes: return "size";
    case ParamType::bandwidth: return "bandwidth";
    case ParamType::flops: return "FLOP count";
    case ParamType::flop_rate: return "FLOP rate";
    case ParamType::watts: return "power";
    case ParamType::joules: return "energy";
    case ParamType::dollars: return "price";
    case ParamType::dollar_rate: return "hourly price";
    case ParamType::list: return "list";
    case ParamType::mapping: return "mapping";
    case ParamType::mapping_or_list: return "mapping or list";
  }
  return "?";
}

std::string_view unit_example(ParamType t) {
  switch (t) {
    case ParamType::time: return "0.5us";
    case ParamType::bytes: return "80GiB";
    case ParamType::bandwidth: return "400Gbps";
    case ParamType::flops: return "5PFLOP";
    case ParamType::flop_rate: return "989TFLOP/s";
    case ParamType::watts: return "700W";
    case ParamType::joules: return "1MWh";
    case ParamType::dollars: return "36000USD";
    case ParamType::dollar_rate: return "2.99USD/h";
    default: return "";
  }
}

bool has_unit(ParamType t) { return !unit_example(t).empty(); }

std::optional<std::string> ParamSpec::check_text(std::string_view text, const std::string& path) const {
  if (!check) return std::nullopt;
  try {
    check(InputNode::parse_value(std::string(text), "", path));
  } catch (const InputError& e) {
    return e.message();
  }
  return std::nullopt;
}

ParamSpec format_version_spec(const std::string& kind, std::vector<int> accepted, const std::string& see) {
  std::string reads;
  for (std::size_t i = 0; i < accepted.size(); ++i) {
    reads += (i == 0 ? "" : i + 1 == accepted.size() ? " and " : ", ") + std::to_string(accepted[i]);
  }
  ParamSpec spec{.key = "format_version", .type = ParamType::integer,
                 .help = "the " + kind + " format's version; this build reads " + reads, .required = true};
  spec.check = [kind, accepted = std::move(accepted), reads, see](const InputNode& n) {
    const int v = n.as<int>();
    n.require(std::find(accepted.begin(), accepted.end(), v) != accepted.end(),
              "unsupported " + kind + " format_version " + std::to_string(v) + " (this build reads " + reads + ")" +
                  (see.empty() ? "" : "; " + see));
  };
  return spec;
}

namespace {
std::pair<std::string_view, std::string_view> split_first(std::string_view path) {
  const auto dot = path.find('.');
  if (dot == std::string_view::npos) return {path, {}};
  return {path.substr(0, dot), path.substr(dot + 1)};
}
}  // namespace

const ParamSpec* ParamSection::find_param(std::string_view dotted_path) const {
  const auto [head, rest] = split_first(dotted_path);
  if (rest.empty()) {
    for (const auto& p : params) {
      if (p.key == head) return &p;
    }
    return nullptr;
  }
  for (const auto& s : sections) {
    if (s.key == head) return s.find_param(rest);
  }
  return nullptr;
}

const ParamSection* ParamSection::find_section(std::string_view dotted_path) const {
  if (dotted_path.empty()) return this;
  const auto [head, rest] = split_first(dotted_path);
  for (const auto& s : sections) {
    if (s.key == head) return s.find_section(rest);
  }
  return nullptr;
}

std::vector<std::string> ParamSection::keys() const {
  std::vector<std::string> out;
  for (const auto& p : params) out.push_back(p.key);
  for (const auto& s : sections) out.push_back(s.key);
  return out;
}

}  // namespace cs
