#include "sim/core/data_dir.hpp"

#include <cstdlib>

#ifndef CS_DATA_DIR
#error "CS_DATA_DIR must be defined by the build"
#endif

namespace cs {

std::string data_dir() {
  if (const char* env = std::getenv("CLUSTERSIM_DATA_DIR"); env != nullptr && *env != '\0') return env;
  return CS_DATA_DIR;
}

std::string data_path(const std::string& relative) { return data_dir() + "/" + relative; }

}  // namespace cs
