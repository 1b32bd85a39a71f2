// A collective model for replay tests: every group is a ring of links with bandwidth B and latency a, and
// collectives never contend (the formulas of Thakur et al. 2005, as NCCL's ring follows them):
//   all-reduce 2(n-1)/n * S/B + 2(n-1) a;  all-gather, reduce-scatter (n-1)/n * S/B + (n-1) a;  send/recv S/B + a.
// It keeps replay tests independent of the topology and network layers.
#pragma once

#include "sim/collectives/collective.hpp"

namespace cs::testing {

class RingFabric final : public CollectiveModel {
 public:
  RingFabric(EventEngine& e, Bandwidth b, Time a) : e_(e), b_(b), a_(a) {}

  [[nodiscard]] Time duration(const CollectiveRequest& r) const {
    if (r.groups.empty()) return Time::zero();
    const auto n = static_cast<std::int64_t>(r.groups.front().size());
    if (n <= 1) return Time::zero();
    const double dn = static_cast<double>(n);
    switch (r.kind) {
      case CollectiveKind::all_reduce: return Bytes{r.bytes.value() * 2.0 * (dn - 1) / dn} / b_ + a_ * (2 * (n - 1));
      case CollectiveKind::all_gather:
      case CollectiveKind::reduce_scatter:
      case CollectiveKind::all_to_all: return Bytes{r.bytes.value() * (dn - 1) / dn} / b_ + a_ * (n - 1);
      default: return r.bytes / b_ + a_;
    }
  }
  void start(const CollectiveRequest& r, std::function<void()> done) override {
    e_.schedule_in(duration(r), std::move(done));
  }
  [[nodiscard]] std::string describe() const override { return "test ring"; }

 private:
  EventEngine& e_;
  Bandwidth b_;
  Time a_;
};

}  // namespace cs::testing
