// The human summary `clustersim run` prints.
#pragma once

#include <string>

#include "sim/scenario/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs {

[[nodiscard]] std::string text_summary(const Scenario& sc, const RunResult& r);

}  // namespace cs
