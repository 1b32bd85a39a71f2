// The model-zoo preset of the given file name (models/NAME.yaml), for tests that work from a shipped model.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>

#include "sim/workload/model_zoo.hpp"

namespace cs::testing {

inline ModelSpec zoo_preset(const std::string& name) {
  const auto& zoo = model_zoo();
  const auto it = std::find_if(zoo.begin(), zoo.end(), [&](const auto& e) { return e.first == name; });
  if (it == zoo.end()) throw std::runtime_error("no " + name + " preset");
  return it->second;
}

/// The DeepSeek-V3-like MoE preset (multi-head latent attention, multi-token prediction).
inline ModelSpec deepseek() { return zoo_preset("deepseek-v3-like"); }

}  // namespace cs::testing
