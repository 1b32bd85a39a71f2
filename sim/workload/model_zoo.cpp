#include "sim/workload/model_zoo.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "sim/core/data_dir.hpp"
#include "sim/input/input_node.hpp"

namespace cs {

const std::vector<std::pair<std::string, ModelSpec>>& model_zoo() {
  static const std::vector<std::pair<std::string, ModelSpec>> zoo = [] {
    std::vector<std::pair<std::string, ModelSpec>> out;
    const std::filesystem::path dir = data_path("models");
    if (!std::filesystem::is_directory(dir)) return out;
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
    }
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      out.emplace_back(n, parse_model_spec(InputNode::parse("preset: " + n + "\n", "model zoo")));
    }
    return out;
  }();
  return zoo;
}

namespace {

/// The letters of `s`, and its digits where `digits`, lower-cased.
std::string lowered(std::string_view s, bool digits) {
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalpha(u) || (digits && std::isdigit(u))) out += static_cast<char>(std::tolower(u));
  }
  return out;
}

/// Lower-case letters of `s` only ("Nemotron-4 340B" -> "nemotronb").
std::string letters(std::string_view s) { return lowered(s, false); }

/// Lower-case letters and digits of `s` only ("Llama 3.1 405B (MLPerf)" -> "llama31405bmlperf").
std::string alnum(std::string_view s) { return lowered(s, true); }

}  // namespace

std::optional<std::pair<std::string, ModelSpec>> match_preset_by_name(std::string_view name) {
  const std::string published = alnum(name);
  const std::pair<std::string, ModelSpec>* hit = nullptr;
  for (const auto& entry : model_zoo()) {
    const std::string own = alnum(entry.second.name);
    if (own.empty() || published.find(own) == std::string::npos) continue;
    if (hit) return std::nullopt;  // two presets' names in one: the name does not decide
    hit = &entry;
  }
  if (!hit) return std::nullopt;
  return *hit;
}

std::optional<std::pair<std::string, ModelSpec>> match_preset(const KnownDimensions& d) {
  std::vector<const std::pair<std::string, ModelSpec>*> hits;
  const std::string row_name = letters(d.name);
  for (const auto& entry : model_zoo()) {
    const ModelSpec& m = entry.second;
    if (m.hidden != d.hidden) continue;
    const std::string family = letters(m.name.substr(0, m.name.find_first_of(" -")));
    if (family.empty() || row_name.find(family) == std::string::npos) continue;
    if (d.heads && m.heads != *d.heads) continue;
    if (d.kv_heads && m.kv_heads != *d.kv_heads) continue;
    if (d.ffn_hidden && m.ffn_hidden != *d.ffn_hidden && m.expert_ffn_hidden != *d.ffn_hidden) continue;
    if (d.experts && m.experts != *d.experts) continue;
    hits.push_back(&entry);
  }
  if (hits.size() > 1) {
    std::erase_if(hits, [&](const auto* e) { return e->second.layers != d.layers; });
  }
  if (hits.size() != 1) return std::nullopt;
  return *hits.front();
}

}  // namespace cs
