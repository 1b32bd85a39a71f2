#include "sim/serving/kv_transfer.hpp"

#include <algorithm>

namespace cs {

std::vector<KvFlow> kv_transfer_flows(const PoolPlacement& prefill, int p, const PoolPlacement& decode, int d,
                                      Bytes kv_per_token, std::int64_t tokens) {
  std::vector<KvFlow> flows;
  const int n = std::max(prefill.tp, decode.tp);
  const Bytes per_flow{kv_per_token.value() * static_cast<double>(tokens) * decode.tp / n};
  const int stages = std::min(prefill.pp, decode.pp);
  flows.reserve(static_cast<std::size_t>(stages * n));
  for (int s = 0; s < stages; ++s) {
    for (int k = 0; k < n; ++k) {
      flows.push_back({prefill.gpu(p, s, k * prefill.tp / n), decode.gpu(d, s, k * decode.tp / n), per_flow});
    }
  }
  return flows;
}

KvTransferNetwork::KvTransferNetwork(EventEngine& engine, const Topology& topology)
    : net_(engine, topology), router_(topology) {}

void KvTransferNetwork::send(const std::vector<KvFlow>& flows, std::function<void()> done) {
  std::size_t slot = pending_.size();
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    pending_.emplace_back();
  }
  pending_[slot] = {static_cast<int>(flows.size()), std::move(done)};
  for (const KvFlow& f : flows) {
    const RouteView route = router_.route(f.src_gpu, f.dst_gpu);
    bytes_ += f.bytes;
    net_.start(route.channels, f.bytes, route.latency, [this, slot] { flow_done(slot); });
  }
}

void KvTransferNetwork::flow_done(std::size_t transfer) {
  Pending& p = pending_[transfer];
  if (--p.flows_left > 0) return;
  std::function<void()> done = std::move(p.done);
  p.done = nullptr;
  free_.push_back(transfer);
  done();
}

}  // namespace cs
