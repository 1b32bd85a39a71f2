// Relative prediction errors and their summary: |predicted - measured| / measured.
#pragma once

#include <vector>

namespace cs::fit {

struct ErrorStats {
  int count = 0;
  double median = 0, p90 = 0, max = 0;  ///< of the absolute relative error (0.05 = 5%)
  double bias = 0;                      ///< median signed relative error (positive: predictions too slow)
};

[[nodiscard]] ErrorStats error_stats(const std::vector<double>& predicted, const std::vector<double>& measured);
/// q-quantile (0..1) of `v` by linear interpolation; `v` need not be sorted.
[[nodiscard]] double quantile(std::vector<double> v, double q);

}  // namespace cs::fit
