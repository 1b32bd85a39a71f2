// A fresh, empty directory per test and process: <tmp>/cs_<name>_<pid>.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace cs::testing {

inline std::filesystem::path temp_dir(const std::string& name) {
  const std::filesystem::path d = std::filesystem::temp_directory_path() / ("cs_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace cs::testing
