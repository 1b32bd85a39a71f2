// Evaluates one sweep point into a results row: loads it, searches a plan when it asks for one, runs
// run_scenario and stores the report layer's JSON result. A point that fails (out of memory, no feasible
// plan, an error while simulating) becomes a 'failed' row with the reason; nothing here throws.
#pragma once

#include <string>

#include "sim/store/result_store.hpp"
#include "sim/sweep/sweep_expansion.hpp"

namespace cs {

/// The version recorded with every row ("0.1.0", the CMake project version).
[[nodiscard]] std::string clustersim_version();

struct PointEvalOptions {
  int search_top = 3;   ///< plans replayed by a `parallelism: search` point (the best replayed one is kept)
};

[[nodiscard]] ResultRow evaluate_point(const SweepSpec& spec, const SweepPoint& point, const PointEvalOptions& opt);

}  // namespace cs
