// The model zoo (models/*.yaml) as data for filling in what a published configuration leaves out: when a row
// states a model's dimensions but not its vocabulary, FFN size or attention layout, the preset with the same
// dimensions supplies them (Llama 3's 128,256-token vocabulary, not a GPT-2 default).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/workload/model_spec.hpp"

namespace cs {

/// Every preset of models/ in the data directory, by file name order. Throws InputError for a malformed one.
[[nodiscard]] const std::vector<std::pair<std::string, ModelSpec>>& model_zoo();

/// Dimensions a caller knows; unset ones are not compared.
struct KnownDimensions {
  std::int64_t hidden = 0;
  int layers = 0;
  std::optional<int> heads;
  std::optional<int> kv_heads;
  std::optional<std::int64_t> ffn_hidden;
  std::optional<int> experts;
  /// The model's name as published ("Llama 3.1 405B (MLPerf)"): a preset matches only when its family (the first
  /// word of its name, letters only: "llama", "gpt", "nemotron", "deepseek") appears in it, so a GPT of Llama's
  /// width does not take Llama's gated FFN.
  std::string name;
};

/// The preset of the same family whose hidden size and every known dimension agree with `d` (layers may differ: reduced-layer
/// proxies of a model keep its width); among several, the one with the same layer count; none when that
/// leaves zero or more than one. Returns the preset's file name and spec.
[[nodiscard]] std::optional<std::pair<std::string, ModelSpec>> match_preset(const KnownDimensions& d);

/// For a published name that comes without dimensions ("GPT3-20B"): the one preset whose name, in letters and
/// digits only ("gpt320b"), appears in it the same way. None when no preset or more than one does.
[[nodiscard]] std::optional<std::pair<std::string, ModelSpec>> match_preset_by_name(std::string_view name);

}  // namespace cs
