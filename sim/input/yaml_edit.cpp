#include "sim/input/yaml_edit.hpp"

namespace cs {
namespace {

/// Removes `parts[i..]` under `node`; drops mappings left empty. Recursion with copies, never
/// Node::operator= (which in yaml-cpp rebinds the node inside the tree).
bool remove_path(YAML::Node node, const std::vector<std::string>& parts, std::size_t i) {
  if (!node.IsMap() || !node[parts[i]]) return false;
  if (i + 1 == parts.size()) return node.remove(parts[i]);
  YAML::Node child = node[parts[i]];
  const bool removed = remove_path(child, parts, i + 1);
  if (removed && child.IsMap() && child.size() == 0) node.remove(parts[i]);
  return removed;
}

std::optional<YAML::Node> find_path(const YAML::Node& node, const std::vector<std::string>& parts, std::size_t i) {
  if (i == parts.size()) return node;
  if (!node.IsMap() || !node[parts[i]]) return std::nullopt;
  return find_path(node[parts[i]], parts, i + 1);
}

std::optional<std::pair<std::string, std::string>> set_path(YAML::Node node, const std::vector<std::string>& parts,
                                                            std::size_t i, const YAML::Node& value,
                                                            OnScalarPath policy, const std::string& walked) {
  if (i + 1 == parts.size()) {
    node[parts[i]] = YAML::Clone(value);
    return std::nullopt;
  }
  const std::string here = walked.empty() ? parts[i] : walked + "." + parts[i];
  const YAML::Node next = node[parts[i]];
  if (next && !next.IsNull() && !next.IsMap()) {
    if (policy == OnScalarPath::refuse) return std::make_pair(here, flow_text(next));
  }
  if (!next || !next.IsMap()) node[parts[i]] = YAML::Node(YAML::NodeType::Map);
  return set_path(node[parts[i]], parts, i + 1, value, policy, here);
}

}  // namespace

std::optional<Setting> parse_setting(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) return std::nullopt;
  return Setting{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

std::vector<std::string> split_dotted_key(std::string_view key) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  while (true) {
    const auto dot = key.find('.', pos);
    parts.emplace_back(key.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos));
    if (dot == std::string_view::npos) return parts;
    pos = dot + 1;
  }
}

YAML::Node value_node(const std::string& text) {
  if (!text.empty() && (text.front() == '[' || text.front() == '{')) {
    try {
      return YAML::Load(text);
    } catch (const YAML::Exception&) {
      // Half-typed flow ("[a, b"): kept as written; loading reports it at its key.
    }
  }
  return YAML::Node(text);
}

std::optional<std::pair<std::string, std::string>> set_dotted(YAML::Node root, const std::string& key,
                                                             const YAML::Node& value, OnScalarPath policy) {
  return set_path(root, split_dotted_key(key), 0, value, policy, "");
}

bool remove_dotted(YAML::Node root, const std::string& key) { return remove_path(root, split_dotted_key(key), 0); }

std::optional<YAML::Node> find_dotted(const YAML::Node& root, const std::string& key) {
  return find_path(root, split_dotted_key(key), 0);
}

std::string flow_text(const YAML::Node& n) {
  YAML::Emitter e;
  e.SetMapFormat(YAML::Flow);
  e.SetSeqFormat(YAML::Flow);
  e << n;
  return e.c_str();
}

}  // namespace cs
