#include "sim/search/search_scenario.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

namespace cs {
namespace {

YAML::Node try_parse(const std::string& text) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception&) {
    return {};  // the loader reports the syntax error with its location
  }
}

template <class T>
std::optional<T> plain(const YAML::Node& n) {
  if (!n || !n.IsScalar()) return std::nullopt;
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}

bool is_search(const YAML::Node& root) {
  return root.IsMap() && root["parallelism"] && root["parallelism"].IsScalar() &&
         root["parallelism"].Scalar() == "search";
}

}  // namespace

bool asks_for_plan_search(const std::string& yaml_text) { return is_search(try_parse(yaml_text)); }

std::string with_placeholder_plan(const std::string& yaml_text) {
  const YAML::Node root = try_parse(yaml_text);
  if (!is_search(root)) return yaml_text;
  int gpus = 0;
  if (root["cluster"] && root["cluster"].IsMap()) gpus = plain<int>(root["cluster"]["gpus"]).value_or(0);
  if (gpus <= 0) return yaml_text;
  // Scalars are replaced in place, on their own lines, so the loader's line:column still point into the
  // user's text. Replacements run from the end so earlier offsets stay valid.
  struct Edit {
    std::size_t pos;
    std::string text;
  };
  std::vector<Edit> edits{{static_cast<std::size_t>(root["parallelism"].Mark().pos), "{dp: " + std::to_string(gpus) + "}"}};
  const YAML::Node training = root["training"];
  if (training && training.IsMap()) {
    const auto batch = plain<std::int64_t>(training["global_batch"]);
    if (batch && *batch > 0) {
      edits.push_back({static_cast<std::size_t>(training["global_batch"].Mark().pos), std::to_string(gpus)});
      if (plain<int>(training["micro_batch"])) {
        edits.push_back({static_cast<std::size_t>(training["micro_batch"].Mark().pos), "1"});
      }
    }
  }
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.pos > b.pos; });
  std::string out = yaml_text;
  for (const Edit& e : edits) {
    // The scalar's extent: a quoted string to its closing quote, a plain scalar to the end of its token.
    std::size_t end = e.pos;
    if (end < out.size() && (out[end] == '"' || out[end] == '\'')) {
      end = out.find(out[e.pos], e.pos + 1);
      end = end == std::string::npos ? out.size() : end + 1;
    } else {
      while (end < out.size() && out[end] != '\n' && out[end] != ' ' && out[end] != '#' && out[end] != ',' &&
             out[end] != '}' && out[end] != '\r') {
        ++end;
      }
    }
    out.replace(e.pos, end - e.pos, e.text);
  }
  return out;
}

SearchableScenario load_searchable_scenario(const std::string& yaml_text, const std::string& name) {
  SearchableScenario out;
  const YAML::Node root = try_parse(yaml_text);
  out.search = is_search(root);
  if (!out.search) {
    out.scenario = load_scenario_text(yaml_text, name);
    return out;
  }
  out.scenario = load_scenario_text(with_placeholder_plan(yaml_text), name);
  // The loader saw the placeholder's batch sizes; the search works with the scenario's own.
  const YAML::Node training = root["training"];
  out.scenario.training.global_batch = training["global_batch"].as<std::int64_t>();
  out.scenario.training.micro_batch = plain<int>(training["micro_batch"]).value_or(1);
  return out;
}

SearchableScenario load_searchable_scenario_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    // Let the loader produce its usual message for a missing or unreadable file.
    SearchableScenario out;
    out.scenario = load_scenario(path);
    return out;
  }
  std::ostringstream s;
  s << in.rdbuf();
  return load_searchable_scenario(s.str(), path);
}

}  // namespace cs
