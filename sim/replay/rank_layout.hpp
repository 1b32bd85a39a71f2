// Where each parallel coordinate lives: Megatron-LM's default rank order, TP fastest, then CP, then DP,
// then PP (rank = t + tp*(c + cp*(d + dp*s))), so TP groups sit inside a node and DP groups span nodes
// rail by rail.
#pragma once

#include <vector>

#include "sim/workload/parallel_plan.hpp"

namespace cs {

class RankLayout {
 public:
  explicit RankLayout(const ParallelPlan& p) : p_(p) {}
  [[nodiscard]] int rank(int t, int c, int d, int s) const noexcept { return t + p_.tp * (c + p_.cp * (d + p_.dp * s)); }

  /// Every TP group of stage `s` (one per CP x DP coordinate).
  [[nodiscard]] std::vector<std::vector<int>> tp_groups(int s) const;
  /// Every CP group of stage `s`.
  [[nodiscard]] std::vector<std::vector<int>> cp_groups(int s) const;
  /// Every EP group of stage `s`: ep ranks expert_tp apart within blocks of expert_tp*ep consecutive
  /// stage-local ranks (with expert_tp = tp: ep consecutive data-parallel (x CP) ranks of one TP coordinate).
  [[nodiscard]] std::vector<std::vector<int>> ep_groups(int s) const;
  /// Every gradient-reduction group of stage `s`: the DP x CP ranks sharing one TP coordinate.
  [[nodiscard]] std::vector<std::vector<int>> dp_groups(int s) const;
  /// Pairs {sender, receiver} for a stage-to-stage transfer, one per TP x CP x DP coordinate.
  [[nodiscard]] std::vector<std::vector<int>> p2p_pairs(int from, int to) const;

 private:
  ParallelPlan p_;
};

}  // namespace cs
