// Renders declared parameters (sim/input/param_spec.hpp) for people and editors: Markdown key tables for
// docs/*.md and JSON Schema (draft 2020-12) documents that YAML editors use to complete and check input files.
// Both are derived, never written by hand: tests/report/param_docs_test.cpp fails when a committed doc differs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/input/param_spec.hpp"

namespace cs {

/// One Markdown table of every key under `section` (nested sections flattened to dotted keys, prefixed by
/// `prefix`): key | type / unit | default | allowed | meaning.
[[nodiscard]] std::string param_markdown(const ParamSection& section, const std::string& prefix);

/// The JSON Schema of a file whose top level is `section`; `title` names it.
[[nodiscard]] nlohmann::json param_json_schema(const ParamSection& section, const std::string& title);

/// Replaces, in `doc`, the text between each `<!-- params: NAME -->` and the next `<!-- /params -->` by the
/// table `render(NAME)` returns; returns the new document. Throws std::runtime_error for an unclosed marker.
template <class Render>
[[nodiscard]] std::string fill_param_tables(const std::string& doc, Render&& render) {
  static const std::string open = "<!-- params: ", close = "<!-- /params -->";
  std::string out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t a = doc.find(open, pos);
    if (a == std::string::npos) break;
    const std::size_t name_end = doc.find(" -->", a);
    const std::size_t b = doc.find(close, a);
    if (name_end == std::string::npos || b == std::string::npos) throw std::runtime_error("unclosed params marker");
    const std::string name = doc.substr(a + open.size(), name_end - a - open.size());
    out += doc.substr(pos, name_end + 4 - pos) + "\n" + render(name);
    pos = b;
    out += close;
    pos += close.size();
  }
  return out + doc.substr(pos);
}

}  // namespace cs
