#include "sim/report/param_docs.hpp"

#include <cstdio>

namespace cs {
namespace {

std::string format_bound(ParamType t, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  std::string s = buf;
  switch (t) {
    case ParamType::time: return s + " s";
    case ParamType::bytes: return s + " B";
    case ParamType::bandwidth: return s + " B/s";
    case ParamType::watts: return s + " W";
    case ParamType::dollars: return s + " USD";
    case ParamType::dollar_rate: return s + " USD/h";
    default: return s;
  }
}

std::string allowed(const ParamSpec& p) {
  if (!p.choices.empty()) {
    std::string s;
    for (const auto& c : p.choices) s += (s.empty() ? "`" : ", `") + c + "`";
    // A number that also takes names (`parallelism.dp`: a count or `auto`).
    if (p.type == ParamType::integer || p.type == ParamType::real) {
      const ParamSpec bounds{.type = p.type, .min = p.min, .max = p.max, .min_exclusive = p.min_exclusive};
      return s + " or " + allowed(bounds);
    }
    return s;
  }
  if (p.min && p.max) return format_bound(p.type, *p.min) + " to " + format_bound(p.type, *p.max);
  if (p.min) return (p.min_exclusive ? "> " : ">= ") + format_bound(p.type, *p.min);
  if (p.max) return "<= " + format_bound(p.type, *p.max);
  return "";
}

std::string type_text(const ParamSpec& p) {
  std::string t(to_string(p.type));
  if (has_unit(p.type)) t += " (`" + std::string(unit_example(p.type)) + "`)";
  return t;
}

std::string escape_cell(std::string s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

void rows(const ParamSection& s, const std::string& prefix, std::string& out) {
  const std::string base = prefix.empty() ? "" : prefix + ".";
  for (const auto& p : s.params) {
    const std::string def = p.required ? "required" : p.default_text.empty() ? "" : "`" + p.default_text + "`";
    out += "| `" + base + p.key + "` | " + type_text(p) + " | " + def + " | " + escape_cell(allowed(p)) + " | " +
           escape_cell(p.help) + " |\n";
  }
  for (const auto& sub : s.sections) rows(sub, base + sub.key + (sub.list ? "[]" : ""), out);
}

nlohmann::json value_schema(const ParamSpec& p) {
  nlohmann::json j;
  std::string desc = p.help;
  if (!p.default_text.empty()) desc += " (default: " + p.default_text + ")";
  j["description"] = desc;
  switch (p.type) {
    case ParamType::integer:
      j["type"] = "integer";
      break;
    case ParamType::real:
      j["type"] = "number";
      break;
    case ParamType::boolean:
      j["type"] = "boolean";
      break;
    case ParamType::choice:
      j["enum"] = p.choices;
      break;
    case ParamType::list:
      j["type"] = "array";
      break;
    case ParamType::mapping:
      j["type"] = "object";
      break;
    case ParamType::mapping_or_list:
      j["type"] = {"object", "array"};
      break;
    case ParamType::text:
      j["type"] = "string";
      break;
    default:
      // A number with a unit, e.g. "400Gbps": the unit is checked by clustersim, the shape here.
      j["type"] = "string";
      j["pattern"] = R"(^\s*[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?\s*[A-Za-z/%$]+\s*$)";
      j["examples"] = {std::string(unit_example(p.type))};
      break;
  }
  if (p.type == ParamType::integer || p.type == ParamType::real) {
    if (p.min) j[p.min_exclusive ? "exclusiveMinimum" : "minimum"] = *p.min;
    if (p.max) j["maximum"] = *p.max;
    if (!p.choices.empty()) {
      // A number or one of the names (`parallelism.dp`: a count or `auto`).
      nlohmann::json number = j;
      number.erase("description");
      j = {{"description", j["description"]}, {"anyOf", {number, {{"enum", p.choices}}}}};
    }
  }
  return j;
}

nlohmann::json section_schema(const ParamSection& s) {
  nlohmann::json j;
  j["type"] = "object";
  if (!s.help.empty()) j["description"] = s.help;
  j["additionalProperties"] = false;
  nlohmann::json props = nlohmann::json::object();
  nlohmann::json required = nlohmann::json::array();
  for (const auto& p : s.params) {
    props[p.key] = value_schema(p);
    if (p.required) required.push_back(p.key);
  }
  for (const auto& sub : s.sections) {
    props[sub.key] = sub.list ? nlohmann::json{{"type", "array"}, {"description", sub.help}, {"items", section_schema(sub)}}
                              : section_schema(sub);
    if (sub.required) required.push_back(sub.key);
  }
  j["properties"] = props;
  if (!required.empty()) j["required"] = required;
  return j;
}

}  // namespace

std::string param_markdown(const ParamSection& section, const std::string& prefix) {
  std::string out = "| key | type (unit) | default | allowed | meaning |\n|---|---|---|---|---|\n";
  rows(section, prefix, out);
  return out;
}

nlohmann::json param_json_schema(const ParamSection& section, const std::string& title) {
  nlohmann::json j = section_schema(section);
  j["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  j["title"] = title;
  return j;
}

}  // namespace cs
