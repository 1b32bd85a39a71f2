// Rank lists for collective tests: n ranks from `first`, `stride` apart.
#pragma once

#include <vector>

namespace cs::testing {

inline std::vector<int> iota(int n, int first = 0, int stride = 1) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(first + i * stride);
  return v;
}

}  // namespace cs::testing
