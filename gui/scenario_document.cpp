#include "gui/scenario_document.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "sim/core/atomic_file.hpp"
#include "sim/input/yaml_edit.hpp"

namespace cs::gui {

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
  const std::optional<YAML::Node> node = find_dotted(root_, dotted_key);
  if (!node) return std::nullopt;
  if (node->IsScalar()) return node->Scalar();
  if (node->IsNull()) return std::string();
  return flow_text(*node);
}

void ScenarioDocument::set_value(const std::string& dotted_key, const std::string& text) {
  if (dotted_key.empty()) return;
  if (text.empty()) {
    if (remove_dotted(root_, dotted_key)) modified_ = true;
    return;
  }
  if (value(dotted_key) == text) return;
  (void)set_dotted(root_, dotted_key, value_node(text), OnScalarPath::replace);
  modified_ = true;
}

}  // namespace cs::gui
