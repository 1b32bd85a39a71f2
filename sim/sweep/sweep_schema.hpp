// The declared keys of a sweep file (docs/sweeps.md), for `clustersim schema sweep`, the docs' key table and
// editors. The sweep loader (sweep_spec.cpp) reads the same six keys; SweepSchema tests hold the two together.
#pragma once

#include "sim/input/param_spec.hpp"

namespace cs {

[[nodiscard]] const ParamSection& sweep_schema();

}  // namespace cs
