#include "sim/collectives/collective.hpp"

#include <algorithm>

namespace cs {

std::string_view to_string(CollectiveKind k) noexcept {
  switch (k) {
    case CollectiveKind::all_reduce: return "all-reduce";
    case CollectiveKind::all_gather: return "all-gather";
    case CollectiveKind::reduce_scatter: return "reduce-scatter";
    case CollectiveKind::broadcast: return "broadcast";
    case CollectiveKind::reduce: return "reduce";
    case CollectiveKind::all_to_all: return "all-to-all";
    case CollectiveKind::send_recv: return "send/recv";
  }
  return "?";
}

std::string_view to_string(CollectiveAlgorithm a) noexcept {
  switch (a) {
    case CollectiveAlgorithm::automatic: return "auto";
    case CollectiveAlgorithm::ring: return "ring";
    case CollectiveAlgorithm::tree: return "tree";
    case CollectiveAlgorithm::halving_doubling: return "halving_doubling";
    case CollectiveAlgorithm::hierarchical: return "hierarchical";
    case CollectiveAlgorithm::nvls: return "nvls";
    case CollectiveAlgorithm::in_network: return "in_network";
  }
  return "?";
}

std::optional<CollectiveAlgorithm> parse_algorithm(std::string_view s) noexcept {
  if (s == "auto" || s == "automatic") return CollectiveAlgorithm::automatic;
  for (CollectiveAlgorithm a : kAllAlgorithms) {
    if (s == to_string(a)) return a;
  }
  return std::nullopt;
}

std::optional<CollectiveKind> parse_collective_kind(std::string_view s) noexcept {
  for (CollectiveKind k : {CollectiveKind::all_reduce, CollectiveKind::all_gather, CollectiveKind::reduce_scatter,
                           CollectiveKind::broadcast, CollectiveKind::reduce, CollectiveKind::all_to_all,
                           CollectiveKind::send_recv}) {
    std::string name(to_string(k));
    if (s == name) return k;
    for (char& c : name) {
      if (c == '-' || c == '/') c = '_';
    }
    if (s == name) return k;
  }
  return std::nullopt;
}

void CollectiveModel::remove_observer(const CollectiveObserver& observer) { std::erase(observers_, &observer); }

double bus_bandwidth_factor(CollectiveKind k, int n) noexcept {
  const double dn = static_cast<double>(n);
  switch (k) {
    case CollectiveKind::all_reduce: return 2.0 * (dn - 1.0) / dn;
    case CollectiveKind::all_gather:
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::all_to_all: return (dn - 1.0) / dn;
    default: return 1.0;
  }
}

}  // namespace cs
