#include "sim/sweep/sweep_expansion.hpp"

#include <nlohmann/json.hpp>

#include "sim/input/yaml_edit.hpp"

#include <cstdio>

namespace cs {
namespace {

/// Writes `value` at `key` (a dotted path) into `root`, creating mappings on the way.
void write_at(YAML::Node root, const std::string& key, const YAML::Node& value, const SourceLocation& where,
              const std::string& sweep_key) {
  if (const auto blocked = set_dotted(root, key, value)) {
    throw InputError(where, sweep_key,
                     blocked->first + " is not a mapping in the base scenario (it is " + blocked->second + ")");
  }
}

}  // namespace

std::string SweepPoint::axes_json() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& v : values) j[v.key] = v.text;
  return j.dump();
}

std::string content_hash(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64-bit offset basis and prime
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

void check_sweep_keys(const SweepSpec& spec, const KeyCheck& check) {
  if (!check) return;
  for (const auto& s : spec.set) {
    if (auto err = check(s.key)) throw InputError(s.where, "set." + s.key, *err);
  }
  for (const auto& g : spec.groups) {
    for (const auto& a : g.axes) {
      if (auto err = check(a.key)) throw InputError(a.key_where, "axes." + a.key, *err);
    }
  }
}

std::vector<SweepPoint> expand_sweep(const SweepSpec& spec) {
  const std::size_t n = spec.point_count();
  std::vector<SweepPoint> points;
  points.reserve(n);
  const std::string base_name = spec.base["name"] && spec.base["name"].IsScalar() ? spec.base["name"].Scalar() : "";
  for (std::size_t index = 0; index < n; ++index) {
    SweepPoint p;
    p.index = static_cast<std::int64_t>(index);
    YAML::Node root = YAML::Clone(spec.base);
    for (const auto& s : spec.set) write_at(root, s.key, s.value, s.where, "set." + s.key);
    // Mixed radix: the last group varies fastest.
    std::size_t rest = index;
    std::vector<std::size_t> pick(spec.groups.size());
    for (std::size_t g = spec.groups.size(); g-- > 0;) {
      pick[g] = rest % spec.groups[g].size();
      rest /= spec.groups[g].size();
    }
    for (std::size_t g = 0; g < spec.groups.size(); ++g) {
      for (const SweepAxis& a : spec.groups[g].axes) {
        const YAML::Node& v = a.values[pick[g]];
        write_at(root, a.key, v, a.key_where, "axes." + a.key);
        p.values.push_back({a.key, flow_text(v), a.value_where[pick[g]]});
        p.label += (p.label.empty() ? "" : ", ") + a.key + "=" + p.values.back().text;
      }
    }
    if (!base_name.empty()) root["name"] = base_name + " [" + p.label + "]";
    YAML::Emitter e;
    e << root;
    p.yaml = std::string(e.c_str()) + "\n";
    p.hash = content_hash(p.yaml);
    points.push_back(std::move(p));
  }
  return points;
}

}  // namespace cs
