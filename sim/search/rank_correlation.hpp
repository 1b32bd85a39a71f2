// Rank agreement between two orderings of the same items: how far a fast screen's order can be trusted.
#pragma once

#include <vector>

namespace cs {

/// Spearman's rho: the Pearson correlation of the ranks (ties get their average rank). In [-1, 1]; 0 when
/// fewer than two items or either side is constant.
[[nodiscard]] double spearman_rho(const std::vector<double>& a, const std::vector<double>& b);
/// Kendall's tau-b: (concordant - discordant) pairs over the tie-corrected pair count. In [-1, 1].
[[nodiscard]] double kendall_tau(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace cs
