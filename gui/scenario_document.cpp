#include "gui/scenario_document.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "sim/core/atomic_file.hpp"

namespace cs::gui {
namespace {

std::vector<std::string> split_key(const std::string& dotted) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(dotted);
  while (std::getline(in, part, '.')) parts.push_back(part);
  return parts;
}

std::string flow_text(const YAML::Node& n) {
  YAML::Emitter out;
  out << YAML::Flow << n;
  return out.c_str();
}

/// Removes `parts[i..]` under `node`; drops mappings left empty. Returns true when something was removed.
bool remove_path(YAML::Node node, const std::vector<std::string>& parts, std::size_t i) {
  if (!node.IsMap() || !node[parts[i]]) return false;
  if (i + 1 == parts.size()) return node.remove(parts[i]);
  YAML::Node child = node[parts[i]];
  const bool removed = remove_path(child, parts, i + 1);
  if (removed && child.IsMap() && child.size() == 0) node.remove(parts[i]);
  return removed;
}

/// The node at `parts[i..]` under `node`. Recursion with copies, never Node::operator= (which in yaml-cpp
/// rebinds the node inside the tree).
std::optional<YAML::Node> find_node(const YAML::Node& node, const std::vector<std::string>& parts, std::size_t i) {
  if (i == parts.size()) return node;
  if (!node.IsMap() || !node[parts[i]]) return std::nullopt;
  return find_node(node[parts[i]], parts, i + 1);
}

void set_path(YAML::Node node, const std::vector<std::string>& parts, std::size_t i, const std::string& text) {
  if (i + 1 == parts.size()) {
    if (text.front() == '[' || text.front() == '{') {
      try {
        node[parts[i]] = YAML::Load(text);
        return;
      } catch (const YAML::Exception&) {
        // Half-typed flow ("[a, b"): kept as written; the field is marked and loading reports it located.
      }
    }
    node[parts[i]] = text;
    return;
  }
  if (!node[parts[i]].IsMap()) node[parts[i]] = YAML::Node(YAML::NodeType::Map);
  set_path(node[parts[i]], parts, i + 1, text);
}

}  // namespace

ScenarioDocument::ScenarioDocument() { root_["format_version"] = 1; }

void ScenarioDocument::load_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the file");
  std::ostringstream text;
  text << in.rdbuf();
  load_text(text.str(), path);
  path_ = path;
}

void ScenarioDocument::load_text(const std::string& text, const std::string& name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(name + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                             ": " + e.msg);
  }
  if (!root.IsMap()) throw std::runtime_error(name + ": a scenario file is a YAML mapping");
  root_ = root;
  path_.clear();
  modified_ = false;
}

void ScenarioDocument::save_file(const std::string& path) {
  write_file_atomically(path, text());
  path_ = path;
  modified_ = false;
}

std::string ScenarioDocument::text() const {
  YAML::Emitter out;
  out << root_;
  return std::string(out.c_str()) + "\n";
}

std::string ScenarioDocument::display_name() const { return path_.empty() ? "untitled.yaml" : path_; }

std::optional<std::string> ScenarioDocument::value(const std::string& dotted_key) const {
  const std::optional<YAML::Node> node = find_node(root_, split_key(dotted_key), 0);
  if (!node) return std::nullopt;
  if (node->IsScalar()) return node->Scalar();
  if (node->IsNull()) return std::string();
  return flow_text(*node);
}

void ScenarioDocument::set_value(const std::string& dotted_key, const std::string& text) {
  const std::vector<std::string> parts = split_key(dotted_key);
  if (parts.empty()) return;
  if (text.empty()) {
    if (remove_path(root_, parts, 0)) modified_ = true;
    return;
  }
  if (value(dotted_key) == text) return;
  set_path(root_, parts, 0, text);
  modified_ = true;
}

}  // namespace cs::gui
