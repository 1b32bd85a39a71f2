#include "sim/replay/rank_layout.hpp"

namespace cs {

std::vector<std::vector<int>> RankLayout::tp_groups(int s) const {
  std::vector<std::vector<int>> out;
  for (int d = 0; d < p_.dp; ++d) {
    for (int c = 0; c < p_.cp; ++c) {
      std::vector<int> g;
      for (int t = 0; t < p_.tp; ++t) g.push_back(rank(t, c, d, s));
      out.push_back(std::move(g));
    }
  }
  return out;
}

std::vector<std::vector<int>> RankLayout::cp_groups(int s) const {
  std::vector<std::vector<int>> out;
  for (int d = 0; d < p_.dp; ++d) {
    for (int t = 0; t < p_.tp; ++t) {
      std::vector<int> g;
      for (int c = 0; c < p_.cp; ++c) g.push_back(rank(t, c, d, s));
      out.push_back(std::move(g));
    }
  }
  return out;
}

std::vector<std::vector<int>> RankLayout::ep_groups(int s) const {
  // Megatron-Core's expert rank order within a stage: expert-TP fastest, then EP, then expert-DP, over the
  // stage-local index i = t + tp*(c + cp*d) (MoE parallel folding: independent of the attention layout).
  std::vector<std::vector<int>> out;
  const int width = p_.tp * p_.cp * p_.dp;
  const int etp = p_.etp();
  const int block = etp * p_.ep;
  const int first = rank(0, 0, 0, s);
  for (int base = 0; base + block <= width; base += block) {
    for (int e = 0; e < etp; ++e) {
      std::vector<int> g;
      for (int j = 0; j < p_.ep; ++j) g.push_back(first + base + e + etp * j);
      out.push_back(std::move(g));
    }
  }
  return out;
}

std::vector<std::vector<int>> RankLayout::dp_groups(int s) const {
  std::vector<std::vector<int>> out;
  for (int t = 0; t < p_.tp; ++t) {
    std::vector<int> g;
    for (int d = 0; d < p_.dp; ++d) {
      for (int c = 0; c < p_.cp; ++c) g.push_back(rank(t, c, d, s));
    }
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<std::vector<int>> RankLayout::p2p_pairs(int from, int to) const {
  std::vector<std::vector<int>> out;
  for (int d = 0; d < p_.dp; ++d) {
    for (int c = 0; c < p_.cp; ++c) {
      for (int t = 0; t < p_.tp; ++t) out.push_back({rank(t, c, d, from), rank(t, c, d, to)});
    }
  }
  return out;
}

}  // namespace cs
