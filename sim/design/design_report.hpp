// The design report as `clustersim design` prints it (a table with units, the front, the best and why each
// other candidate lost) and as `--json` writes it (keys in docs/design.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/design/fabric_design.hpp"

namespace cs {

[[nodiscard]] nlohmann::ordered_json design_json(const DesignReport& report);
[[nodiscard]] std::string design_text(const DesignReport& report);

}  // namespace cs
