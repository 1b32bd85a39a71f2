// The operator of the given name in a list from forward_ops / backward_ops, for tests that check one operator.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/workload/layer_ops.hpp"

namespace cs::testing {

inline const Op& find_op(const std::vector<Op>& ops, const std::string& name) {
  const auto it = std::find_if(ops.begin(), ops.end(), [&](const Op& o) { return o.name == name; });
  if (it == ops.end()) throw std::runtime_error("no op " + name);
  return *it;
}

}  // namespace cs::testing
