// The contention-free communication model: each collective's time follows the alpha-beta cost of NCCL's ring
// algorithm over the slowest link class the group crosses, and concurrent collectives do not slow each other.
//
// For a group of n ranks, message S, per-link bandwidth B and per-hop latency a (Thakur et al. 2005;
// NCCL's ring):
//   all-reduce      2(n-1)/n * S/B + 2(n-1) a
//   all-gather,
//   reduce-scatter  (n-1)/n * S/B + (n-1) a
//   all-to-all      (n-1)/n * S/B + (n-1) a      (pairwise exchange)
//   broadcast, reduce  S/B + (n-1) a             (pipelined chain)
//   send/recv       S/B + a
// A group inside one node uses the GPUs' scale-up links; a group spanning nodes is limited by the per-GPU
// share of the node's NICs (B = nics * nic_bw / gpus_per_node) with the NIC latency, which is the bottleneck
// of NCCL's hierarchical ring on rail-optimised fabrics.
#pragma once

#include "sim/collectives/collective.hpp"
#include "sim/topology/topology.hpp"

namespace cs {

class AnalyticCollectives final : public CollectiveModel {
 public:
  AnalyticCollectives(EventEngine& engine, const Topology& topology) : engine_(engine), topo_(topology) {}
  void start(const CollectiveRequest& req, std::function<void()> done) override;
  [[nodiscard]] std::string describe() const override;
  /// The modelled duration of `req`'s slowest group.
  [[nodiscard]] Time duration(const CollectiveRequest& req) const;

 private:
  EventEngine& engine_;
  const Topology& topo_;
};

}  // namespace cs
