// The `--set KEY=VALUE` option that `run`, `tco` and `plan` share with the planner (repeatable; a dotted
// scenario key and the value a file would hold there).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "sim/api/clustersim.hpp"

namespace cs::cli {

inline void add_settings_option(CLI::App& cmd, std::vector<std::string>& raw) {
  cmd.add_option("--set", raw,
                 "Write VALUE at the scenario key KEY before loading (repeatable): --set cluster.gpus=512 "
                 "--set training.precision=fp8")
      ->type_name("KEY=VALUE");
}

/// The settings; a malformed one fails as bad input naming it.
inline std::vector<Setting> parse_settings(const std::vector<std::string>& raw) {
  std::vector<Setting> out;
  for (const std::string& r : raw) {
    auto s = parse_setting(r);
    if (!s) throw InputError({"--set " + r, 0, 0}, "", "expected KEY=VALUE (cluster.gpus=512)");
    out.push_back(std::move(*s));
  }
  return out;
}

}  // namespace cs::cli
