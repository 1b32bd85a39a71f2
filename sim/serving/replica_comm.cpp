#include "sim/serving/replica_comm.hpp"

#include <numeric>
#include <vector>

namespace cs {

Time AlphaBetaComm::all_reduce(Bytes per_rank) const {
  if (tp_ <= 1) return Time::zero();
  const double n = tp_;
  return Bytes{2.0 * (n - 1.0) / n * per_rank.value()} / link_ + latency_ * (2 * (tp_ - 1));
}

Time AlphaBetaComm::all_gather(Bytes gathered) const {
  if (tp_ <= 1) return Time::zero();
  const double n = tp_;
  return Bytes{(n - 1.0) / n * gathered.value()} / link_ + latency_ * (tp_ - 1);
}

Time AlphaBetaComm::send(Bytes bytes) const { return bytes / link_ + latency_; }

std::string AlphaBetaComm::describe() const {
  return "ring alpha-beta over " + std::to_string(tp_) + " GPUs, " + to_string(link_) + " per link, " +
         to_string(latency_) + " per step";
}

namespace {

std::vector<int> first_ranks(int n) {
  std::vector<int> r(static_cast<std::size_t>(n));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

}  // namespace

TopologyComm::TopologyComm(const Topology& topology, int tp, CollectiveCalibration calibration)
    : topo_(topology),
      calibration_(std::move(calibration)),
      cost_(topo_, calibration_),
      tp_group_(shape_of(topo_, first_ranks(tp))),
      stage_pair_(shape_of(topo_, tp < topo_.gpu_count() ? std::vector<int>{tp - 1, tp} : std::vector<int>{0, 1})) {}

Time TopologyComm::priced(CollectiveKind k, Bytes s, const GroupShape& g) const {
  return cost_.estimate(cost_.choose(k, s, g), k, s, g);
}

Time TopologyComm::all_reduce(Bytes per_rank) const {
  return tp_group_.ranks <= 1 ? Time::zero() : priced(CollectiveKind::all_reduce, per_rank, tp_group_);
}

Time TopologyComm::all_gather(Bytes gathered) const {
  return tp_group_.ranks <= 1 ? Time::zero() : priced(CollectiveKind::all_gather, gathered, tp_group_);
}

Time TopologyComm::send(Bytes bytes) const { return priced(CollectiveKind::send_recv, bytes, stage_pair_); }

std::string TopologyComm::describe() const {
  return "analytic collectives on " + topo_.name() + " (" + calibration_.source() + ")";
}

}  // namespace cs
