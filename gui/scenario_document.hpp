// The scenario being edited: a YAML document held as a tree, read and written by dotted key path
// ("facility.cooling.pue"). The forms write into it, Run hands its text to cs::load_scenario_text, and Save
// writes it back as a file that `clustersim run` reads unchanged. Keys the forms never touched keep their
// order and value; comments are not kept (yaml-cpp does not model them).
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

namespace cs::gui {

class ScenarioDocument {
 public:
  /// An empty scenario (format_version only).
  ScenarioDocument();

  /// Reads `path`; throws std::runtime_error naming the file (and line, for malformed YAML).
  void load_file(const std::string& path);
  /// Parses `text`; `name` stands in for the file name in messages.
  void load_text(const std::string& text, const std::string& name);
  /// Writes the document to `path` atomically and makes it the document's file; throws on failure.
  void save_file(const std::string& path);

  /// The YAML text of the document.
  [[nodiscard]] std::string text() const;
  /// The file it was read from or saved to; empty for a new document.
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  /// What messages call the document: the file path, or "untitled.yaml".
  [[nodiscard]] std::string display_name() const;
  [[nodiscard]] bool modified() const noexcept { return modified_; }
  void set_modified(bool m) noexcept { modified_ = m; }

  /// The scalar at `dotted_key` as written, or nullopt when absent. A sequence or mapping is returned in
  /// YAML flow style ("[a, b]").
  [[nodiscard]] std::optional<std::string> value(const std::string& dotted_key) const;
  /// Sets the value at `dotted_key`, creating the sections on the way; an empty `text` removes the key (the
  /// default applies) and then any section it leaves empty. A text starting with '[' or '{' is parsed as YAML
  /// flow (kept as a plain string when it does not parse). Marks the document modified when the value changes.
  void set_value(const std::string& dotted_key, const std::string& text);

 private:
  YAML::Node root_;
  std::string path_;
  bool modified_ = false;
};

}  // namespace cs::gui
