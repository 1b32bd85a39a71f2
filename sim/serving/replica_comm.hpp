// What a replica's iteration pays for communication: the tensor-parallel group's all-reduces (two per layer)
// and all-gather (the logits), and the activations sent from one pipeline stage to the next. One interface,
// two fidelities: a ring alpha-beta over one link per GPU (hand-checkable), and the collectives layer's
// contention-free model on a topology (CollectiveCost with NCCL's algorithm choice and calibration).
#pragma once

#include <string>

#include "sim/collectives/calibration.hpp"
#include "sim/collectives/collective_cost.hpp"
#include "sim/core/units.hpp"
#include "sim/topology/topology.hpp"

namespace cs {

class ReplicaComm {
 public:
  virtual ~ReplicaComm() = default;
  /// All-reduce of `per_rank` bytes over the TP group (zero for one GPU).
  [[nodiscard]] virtual Time all_reduce(Bytes per_rank) const = 0;
  /// All-gather over the TP group into `gathered` bytes per rank (zero for one GPU).
  [[nodiscard]] virtual Time all_gather(Bytes gathered) const = 0;
  /// Sending `bytes` from the last GPU of one pipeline stage to the next stage.
  [[nodiscard]] virtual Time send(Bytes bytes) const = 0;
  /// One line for results: "ring alpha-beta, 450 GB/s, 2 us per step".
  [[nodiscard]] virtual std::string describe() const = 0;
};

/// Ring collectives over n = tp ranks, each with one link of bandwidth B and per-step latency a (Thakur et al.
/// 2005): all-reduce 2(n-1)/n S/B + 2(n-1) a, all-gather (n-1)/n S/B + (n-1) a, send S/B + a.
class AlphaBetaComm final : public ReplicaComm {
 public:
  AlphaBetaComm(int tp, Bandwidth link, Time step_latency) : tp_(tp), link_(link), latency_(step_latency) {}
  [[nodiscard]] Time all_reduce(Bytes per_rank) const override;
  [[nodiscard]] Time all_gather(Bytes gathered) const override;
  [[nodiscard]] Time send(Bytes bytes) const override;
  [[nodiscard]] std::string describe() const override;

 private:
  int tp_;
  Bandwidth link_;
  Time latency_;
};

/// The collectives layer's analytic model: the TP group is GPUs 0 .. tp-1 of the topology (one node for
/// tp <= the node's GPUs), the next stage starts at GPU tp. `topology` must outlive this object.
class TopologyComm final : public ReplicaComm {
 public:
  TopologyComm(const Topology& topology, int tp, CollectiveCalibration calibration);
  [[nodiscard]] Time all_reduce(Bytes per_rank) const override;
  [[nodiscard]] Time all_gather(Bytes gathered) const override;
  [[nodiscard]] Time send(Bytes bytes) const override;
  [[nodiscard]] std::string describe() const override;

 private:
  [[nodiscard]] Time priced(CollectiveKind k, Bytes s, const GroupShape& g) const;
  const Topology& topo_;
  CollectiveCalibration calibration_;
  CollectiveCost cost_;
  GroupShape tp_group_;
  GroupShape stage_pair_;
};

}  // namespace cs
