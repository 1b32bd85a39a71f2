#include "sim/sweep/sweep_spec.hpp"

#include "sim/schedule/schedule_config.hpp"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace cs {
namespace {

constexpr int kFormatVersion = 1;

SourceLocation at(const std::string& file, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return m.is_null() ? SourceLocation{file, 0, 0} : SourceLocation{file, m.line + 1, m.column + 1};
}

std::string read_text(const std::string& path, const SourceLocation& where, const std::string& key) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(where, key, "cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

YAML::Node parse_yaml(const std::string& text, const std::string& file) {
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError({file, e.mark.line + 1, e.mark.column + 1}, "", "YAML syntax error: " + e.msg);
  }
}

std::string scalar(const std::string& file, const YAML::Node& n, const std::string& key) {
  if (!n.IsScalar()) throw InputError(at(file, n), key, "must be a single value");
  return n.Scalar();
}

/// One axis from `key: [values...]`.
SweepAxis read_axis(const std::string& file, const YAML::Node& key, const YAML::Node& values,
                    const std::string& where_key) {
  SweepAxis a;
  a.key = scalar(file, key, where_key);
  a.key_where = at(file, key);
  const std::string path = where_key + "." + a.key;
  if (a.key.empty() || a.key.front() == '.' || a.key.back() == '.' || a.key.find("..") != std::string::npos) {
    throw InputError(a.key_where, path, "not a key path (write section.key, e.g. cluster.gpus)");
  }
  if (!values.IsSequence()) throw InputError(at(file, values), path, "must be a list of values");
  if (values.size() == 0) throw InputError(at(file, values), path, "an axis needs at least one value");
  for (const auto& v : values) {
    if (v.IsNull()) throw InputError(at(file, v), path, "empty value");
    a.values.push_back(v);
    a.value_where.push_back(at(file, v));
  }
  return a;
}

}  // namespace

std::size_t SweepSpec::point_count() const {
  std::size_t n = 1;
  for (const auto& g : groups) n *= g.size();
  return n;
}

SweepSpec load_sweep(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) throw InputError({path, 0, 0}, "", "no such sweep file");
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return parse_sweep(read_text(path, {path, 0, 0}, ""), path, dir);
}

SweepSpec parse_sweep(const std::string& text, const std::string& file, const std::string& dir) {
  SweepSpec s;
  s.file = file;
  const YAML::Node root = parse_yaml(text, file);
  if (!root.IsMap()) throw InputError({file, 1, 1}, "", "a sweep file is a mapping (format_version, name, base, axes)");
  std::set<std::string> seen;
  for (const auto& kv : root) {
    const std::string k = kv.first.Scalar();
    static const std::set<std::string> known{"format_version", "name", "description", "base", "set", "axes"};
    if (!known.contains(k)) {
      throw InputError(at(file, kv.first), k, "unknown key (expected one of: axes, base, description, format_version, name, set)");
    }
  }
  const auto need = [&](const char* key) {
    const YAML::Node n = root[key];
    if (!n) throw InputError({file, 1, 1}, key, "missing key");
    return n;
  };
  const YAML::Node version = need("format_version");
  if (scalar(file, version, "format_version") != std::to_string(kFormatVersion)) {
    throw InputError(at(file, version), "format_version",
                     "unsupported format_version " + version.Scalar() + " (this build reads " +
                         std::to_string(kFormatVersion) + ")");
  }
  s.name = scalar(file, need("name"), "name");
  if (root["description"]) s.description = scalar(file, root["description"], "description");

  const YAML::Node base = need("base");
  s.base_where = at(file, base);
  const std::filesystem::path base_rel = scalar(file, base, "base");
  s.base_path = (base_rel.is_absolute() || dir.empty() ? base_rel : std::filesystem::path(dir) / base_rel)
                    .lexically_normal()
                    .string();
  if (!std::filesystem::is_regular_file(s.base_path)) {
    throw InputError(s.base_where, "base", "no such scenario file: " + s.base_path);
  }
  s.base = parse_yaml(read_text(s.base_path, s.base_where, "base"), s.base_path);
  if (!s.base.IsMap()) throw InputError({s.base_path, 1, 1}, "", "a scenario is a mapping");
  s.schedule = is_schedule_document(s.base);

  if (const YAML::Node set = root["set"]) {
    if (!set.IsMap()) throw InputError(at(file, set), "set", "must be a mapping of key path: value");
    for (const auto& kv : set) {
      SweepSetting e{scalar(file, kv.first, "set"), at(file, kv.second), kv.second};
      if (e.value.IsNull()) throw InputError(e.where, "set." + e.key, "empty value");
      if (!seen.insert(e.key).second) throw InputError(at(file, kv.first), "set." + e.key, "key set twice");
      s.set.push_back(std::move(e));
    }
  }

  const YAML::Node axes = need("axes");
  const auto add_group = [&](SweepGroup g, const YAML::Node& where) {
    for (const SweepAxis& a : g.axes) {
      if (!seen.insert(a.key).second) {
        throw InputError(a.key_where, "axes." + a.key, "key already swept or set elsewhere in this file");
      }
      if (a.values.size() != g.axes.front().values.size()) {
        throw InputError(a.key_where, "axes." + a.key,
                         "zipped axes need equal lengths: " + std::to_string(a.values.size()) + " values here, " +
                             std::to_string(g.axes.front().values.size()) + " for " + g.axes.front().key);
      }
    }
    if (g.axes.empty()) throw InputError(at(file, where), "axes", "an empty group");
    s.groups.push_back(std::move(g));
  };
  if (axes.IsMap()) {
    for (const auto& kv : axes) add_group(SweepGroup{{read_axis(file, kv.first, kv.second, "axes")}}, kv.first);
  } else if (axes.IsSequence()) {
    int i = 0;
    for (const auto& group : axes) {
      const std::string key = "axes[" + std::to_string(i++) + "]";
      if (!group.IsMap()) throw InputError(at(file, group), key, "a group is a mapping of key path: [values]");
      SweepGroup g;
      for (const auto& kv : group) g.axes.push_back(read_axis(file, kv.first, kv.second, key));
      add_group(std::move(g), group);
    }
  } else {
    throw InputError(at(file, axes), "axes", "must be a mapping of key path: [values] or a list of such groups");
  }
  if (s.groups.empty()) throw InputError(at(file, axes), "axes", "no axes: a sweep needs at least one");
  return s;
}

}  // namespace cs
