// A request's KV cache sent from a prefill replica to a decode replica (disaggregated serving), as flows on the
// flow-level network (sim/network/flow_network.hpp): each flow waits out its route's latency and then moves its
// bytes at its max-min fair share of every channel it crosses, so transfers that share NVLink ports, PCIe, NICs
// or fabric links slow each other down.
//
// Where the pools sit: replica r of a pool holds the GPUs first + r x tp x pp .. + tp x pp - 1, stage s's TP rank t
// at first + r x tp x pp + s x tp + t (the prefill pool from GPU 0, the decode pool right after it). Every decode GPU
// needs the keys and values of its own heads and its stage's layers: `kv_per_token` (the decode replica's per-GPU
// share) x tokens. With n = max(prefill tp, decode tp) flows per stage, flow k runs from prefill rank
// floor(k x tp_p / n) to decode rank floor(k x tp_d / n) and carries tp_d / n of that decode GPU's share: one flow
// per GPU pair when the TP degrees match, a decode GPU fed by several prefill GPUs when the prefill pool is wider,
// a prefill GPU feeding several when it is narrower.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/core/event_engine.hpp"
#include "sim/core/units.hpp"
#include "sim/network/flow_network.hpp"
#include "sim/topology/router.hpp"
#include "sim/topology/topology.hpp"

namespace cs {

/// Where one pool's replicas sit on the topology's GPUs.
struct PoolPlacement {
  int first_gpu = 0;
  int tp = 1;
  int pp = 1;
  [[nodiscard]] int gpus_per_replica() const noexcept { return tp * pp; }
  /// The GPU of `replica`'s stage `stage`, TP rank `rank`.
  [[nodiscard]] int gpu(int replica, int stage, int rank) const noexcept {
    return first_gpu + replica * gpus_per_replica() + stage * tp + rank;
  }
};

/// One GPU-to-GPU piece of a KV transfer.
struct KvFlow {
  int src_gpu = 0, dst_gpu = 0;
  Bytes bytes;
};

/// The flows that send `tokens` tokens of cache from prefill replica `p` to decode replica `d` (see above);
/// `kv_per_token` is what one decode GPU holds per token.
[[nodiscard]] std::vector<KvFlow> kv_transfer_flows(const PoolPlacement& prefill, int p, const PoolPlacement& decode,
                                                    int d, Bytes kv_per_token, std::int64_t tokens);

/// Sends KV transfers over a FlowNetwork on `engine`, routing each flow on `topology` (both must outlive it).
class KvTransferNetwork {
 public:
  KvTransferNetwork(EventEngine& engine, const Topology& topology);
  /// Starts every flow of one transfer now; `done` runs on the engine when the last of them has arrived.
  void send(const std::vector<KvFlow>& flows, std::function<void()> done);
  [[nodiscard]] Bytes bytes_sent() const noexcept { return bytes_; }
  [[nodiscard]] const FlowNetwork& network() const noexcept { return net_; }

 private:
  struct Pending {
    int flows_left = 0;
    std::function<void()> done;
  };
  void flow_done(std::size_t transfer);

  FlowNetwork net_;
  Router router_;
  std::vector<Pending> pending_;   ///< by transfer slot; reused once done
  std::vector<std::size_t> free_;  ///< finished slots
  Bytes bytes_;
};

}  // namespace cs
