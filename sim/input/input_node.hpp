// A checked view of a YAML document: every access knows its file, line, column and key path, so every error
// can say exactly where it is. Mappings remember which keys were read; `finish()` rejects the rest as unknown.
// All input files (scenarios, topologies, price books, profiles) are read through this one class.
#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/input/yaml_edit.hpp"

namespace cs {

class InputNode {
 public:
  /// Loads and parses a YAML file. Throws InputError for a missing or unreadable file, an empty file, binary
  /// content, a YAML syntax error, or a top level that is not a mapping.
  [[nodiscard]] static InputNode load_file(const std::string& path);
  /// Writes `settings` over this document (a mapping) before anything reads it; an error at a value a setting
  /// wrote is located at `origin_prefix` + "KEY=VALUE" ("--set cluster.gpus=512"). Throws InputError for a
  /// malformed key or a path through a scalar.
  void apply(const std::vector<Setting>& settings, const std::string& origin_prefix);
  /// load_file, then `settings` applied as parse(text, name, settings) does.
  [[nodiscard]] static InputNode load_file(const std::string& path, const std::vector<Setting>& settings);
  /// Parses YAML text; `name` stands in for the file name in messages.
  [[nodiscard]] static InputNode parse(const std::string& text, const std::string& name);
  /// Parses YAML text and applies `settings` (the CLI's `--set KEY=VALUE`) before anything reads it. An error
  /// at a value a setting wrote is located at "--set KEY=VALUE" instead of the file; a setting whose path runs
  /// through a scalar ("parallelism: search") fails naming both.
  [[nodiscard]] static InputNode parse(const std::string& text, const std::string& name,
                                       const std::vector<Setting>& settings);
  /// Parses one value (a scalar, a list or a mapping) typed outside a file: a form field, a sweep value, a
  /// command-line setting. `name` stands in for the file, `path` is the key the value is for.
  [[nodiscard]] static InputNode parse_value(const std::string& text, const std::string& name,
                                             const std::string& path);

  // ---- Mappings ----
  /// The value under `key`; throws "missing key" when absent.
  [[nodiscard]] InputNode at(std::string_view key) const;
  /// The value under `key`, or nullopt when absent (or null).
  [[nodiscard]] std::optional<InputNode> find(std::string_view key) const;
  [[nodiscard]] bool has(std::string_view key) const;
  /// Throws InputError naming the first key of this mapping that was never read, with the keys that were.
  void finish() const;
  /// Throws InputError for the first key not in `allowed`. Call it before reading, so that a misspelt key
  /// is reported as unknown rather than as a missing one.
  void allow_only(std::initializer_list<std::string_view> allowed) const;
  void allow_only(const std::vector<std::string>& allowed) const;

  /// Shorthands: the typed value under `key`, or `fallback` when the key is absent.
  template <class T>
  [[nodiscard]] T get(std::string_view key) const { return at(key).as<T>(); }
  template <class T>
  [[nodiscard]] T get_or(std::string_view key, T fallback) const {
    auto n = find(key);
    return n ? n->as<T>() : fallback;
  }

  // ---- Sequences ----
  [[nodiscard]] std::vector<InputNode> elements() const;

  // ---- Scalars ----
  /// Converts the scalar. Supported: bool, int, std::int64_t, double, std::string, and the unit types of
  /// units.hpp (which require a unit in the text: "0.5us", "400Gbps", ...).
  template <class T>
  [[nodiscard]] T as() const;

  [[nodiscard]] bool is_map() const { return node_.IsMap(); }
  [[nodiscard]] bool is_sequence() const { return node_.IsSequence(); }
  [[nodiscard]] bool is_scalar() const { return node_.IsScalar(); }
  /// The keys of a mapping, in file order (empty for other nodes).
  [[nodiscard]] std::vector<std::string> keys() const;

  /// Throws InputError at this node with `message`.
  [[noreturn]] void fail(const std::string& message) const;
  /// Throws InputError at this node unless `ok`.
  void require(bool ok, const std::string& message) const {
    if (!ok) fail(message);
  }

  /// The node as YAML text (block style; comments are not kept): a document with settings written over it.
  [[nodiscard]] std::string yaml_text() const;

  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] SourceLocation location() const;
  [[nodiscard]] const std::string& file() const noexcept { return *file_; }

 private:
  /// The values settings wrote, each with the origin its errors name ("--set cluster.gpus=512").
  using Written = std::vector<std::pair<YAML::Node, std::string>>;
  InputNode(YAML::Node node, std::shared_ptr<const std::string> file, std::string path,
            std::shared_ptr<const Written> written = nullptr);
  [[nodiscard]] std::string child_path(std::string_view key) const;
  [[nodiscard]] const std::string& scalar_text(std::string_view expected) const;

  YAML::Node node_;
  std::shared_ptr<const std::string> file_;
  std::string path_;
  std::shared_ptr<const Written> written_;
  std::shared_ptr<std::set<std::string, std::less<>>> read_keys_;  // shared by copies of one mapping node
};

}  // namespace cs

namespace cs {
template <> std::string InputNode::as<std::string>() const;
template <> bool InputNode::as<bool>() const;
template <> double InputNode::as<double>() const;
template <> std::int64_t InputNode::as<std::int64_t>() const;
template <> int InputNode::as<int>() const;
template <> Time InputNode::as<Time>() const;
template <> Bytes InputNode::as<Bytes>() const;
template <> Bandwidth InputNode::as<Bandwidth>() const;
template <> Flops InputNode::as<Flops>() const;
template <> FlopRate InputNode::as<FlopRate>() const;
template <> Watts InputNode::as<Watts>() const;
template <> Joules InputNode::as<Joules>() const;
template <> Dollars InputNode::as<Dollars>() const;
template <> DollarRate InputNode::as<DollarRate>() const;
}  // namespace cs
