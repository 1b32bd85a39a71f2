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
  std::vector<std::vector<int>> out;
  const int width = p_.dp * p_.cp;  // ep consecutive (c, d) coordinates form one EP group
  for (int t = 0; t < p_.tp; ++t) {
    for (int base = 0; base + p_.ep <= width; base += p_.ep) {
      std::vector<int> g;
      for (int j = base; j < base + p_.ep; ++j) g.push_back(rank(t, j % p_.cp, j / p_.cp, s));
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
