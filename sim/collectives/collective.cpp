#include "sim/collectives/collective.hpp"

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
