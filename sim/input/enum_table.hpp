// The names of an enum's values, declared once: the parser, error messages ("must be a, b or c"), docs, the JSON
// Schema and the planner's drop-down lists all read this one table.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cs {

template <class E>
class EnumTable {
 public:
  struct Entry {
    E value;
    std::string_view name;
  };

  EnumTable(std::initializer_list<Entry> entries) : entries_(entries) {}

  /// The value spelled `name`, or nullopt.
  [[nodiscard]] std::optional<E> find(std::string_view name) const {
    for (const auto& e : entries_) {
      if (e.name == name) return e.value;
    }
    return std::nullopt;
  }
  /// The spelling of `v` ("?" for a value the table does not list, which is a bug in the table).
  [[nodiscard]] std::string_view name(E v) const {
    for (const auto& e : entries_) {
      if (e.value == v) return e.name;
    }
    return "?";
  }
  [[nodiscard]] std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : entries_) out.emplace_back(e.name);
    return out;
  }
  /// "a, b or c": for messages.
  [[nodiscard]] std::string expected() const { return join_alternatives(names()); }

  [[nodiscard]] const std::vector<Entry>& entries() const noexcept { return entries_; }

  /// "a", "a or b", "a, b or c".
  [[nodiscard]] static std::string join_alternatives(const std::vector<std::string>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i > 0) s += i + 1 == v.size() ? " or " : ", ";
      s += v[i];
    }
    return s;
  }

 private:
  std::vector<Entry> entries_;
};

}  // namespace cs
