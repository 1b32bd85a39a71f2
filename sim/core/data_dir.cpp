#include "sim/core/data_dir.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#ifndef CS_DATA_DIR
#error "CS_DATA_DIR must be defined by the build"
#endif

namespace cs {

std::string data_dir() {
  if (const char* env = std::getenv("CLUSTERSIM_DATA_DIR"); env != nullptr && *env != '\0') return env;
  return CS_DATA_DIR;
}

std::string data_path(const std::string& relative) { return data_dir() + "/" + relative; }

std::vector<std::string> shipped_yaml_names(const std::string& relative) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(data_path(relative), ec)) {
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace cs
