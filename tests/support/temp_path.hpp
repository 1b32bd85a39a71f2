// Scratch paths that belong to one test process: <tmp>/cs_<name>_<pid>[...].
// ctest runs each test case as its own process, two at a time, so a fixed name in /tmp is a race between cases.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace cs::testing {

/// <tmp>/cs_<name>_<pid><ext>, removed if a previous run left it: a file, or a directory with its contents (a
/// process of an earlier run with the same pid may have left either; plain remove() throws on a full directory).
inline std::filesystem::path temp_file(const std::string& name, const std::string& ext) {
  const std::filesystem::path p =
      std::filesystem::temp_directory_path() / ("cs_" + name + "_" + std::to_string(::getpid()) + ext);
  std::filesystem::remove_all(p);
  return p;
}

/// A fresh, empty directory <tmp>/cs_<name>_<pid>.
inline std::filesystem::path temp_dir(const std::string& name) {
  const std::filesystem::path d = temp_file(name, "");
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace cs::testing
