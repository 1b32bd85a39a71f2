// Per-link statistics of a FlowNetwork, gathered as an observer of its flows, and their summary for the
// `network.links` section of a result: totals per link tier (NVLink, PCIe, node-leaf, leaf-spine, ...) and the
// busiest links. The statistics count real payload: a calibrated flow that is slowed by a bandwidth factor
// still reports the bytes it carried.
//
// Every flow start and end updates the counters of each channel on its route: ~60 million scattered updates
// in one 16,384-GPU step. They are queued and applied in batches, in the order they happened (so every sum is
// the same), fetching the counters of a few events ahead while applying one; every read applies the queue
// first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/network/flow_network.hpp"

namespace cs {

/// What one channel (one direction of one link) carried. Its busy time is LinkStatistics::busy_time().
struct ChannelStats {
  Bytes bytes;           ///< payload of completed flows that crossed it
  int peak_flows = 0;    ///< most flows sharing it at once
  int flows = 0;         ///< flows that crossed it
  int active = 0;        ///< flows on it now
};

struct TierSummary {
  LinkTier tier = LinkTier::nvlink;
  int channels_used = 0;
  long flows = 0;
  Bytes bytes;
  Time busy_max;
  Time busy_total;           ///< summed over the tier's used channels (mean = busy_total / channels_used)
  int peak_concurrent_flows = 0;
  bool operator==(const TierSummary&) const = default;
};

struct LinkSummary {
  std::string link;          ///< "leaf3->spine1"
  LinkTier tier = LinkTier::nvlink;
  Bandwidth capacity;
  Bytes bytes;
  Time busy;
  double utilization = 0;    ///< busy / elapsed
  int peak_concurrent_flows = 0;
  bool operator==(const LinkSummary&) const = default;
};

/// The `links` part of a network report.
struct LinkReport {
  std::vector<TierSummary> by_tier;     ///< tiers that carried a flow, in LinkTier order
  std::vector<LinkSummary> top_links;   ///< by payload, descending (ties: lower channel id first)
  std::size_t channels_used = 0;
  std::uint64_t flows_started = 0;
  std::uint64_t solves = 0;
  std::size_t largest_component_flows = 0;
  bool operator==(const LinkReport&) const = default;
};

class LinkStatistics final : public FlowObserver {
 public:
  /// Subscribes to `net` for the statistics' lifetime.
  explicit LinkStatistics(FlowNetwork& net);
  ~LinkStatistics() override;
  LinkStatistics(const LinkStatistics&) = delete;
  LinkStatistics& operator=(const LinkStatistics&) = delete;

  void on_flow_start(const FlowEvent& event) override;
  void on_flow_end(const FlowEvent& event) override;

  [[nodiscard]] ChannelStats channel(ChannelId c) const;
  /// Busy time of `c` up to `now`, counting a busy interval still open.
  [[nodiscard]] Time busy_time(ChannelId c, Time now) const;
  /// Summary at `now`; `elapsed` (the simulated span) turns busy time into utilisation; `top_n` limits the
  /// busiest-link list.
  [[nodiscard]] LinkReport report(Time now, Time elapsed, int top_n = 10) const;

 private:
  // Every flow's start and end updates the counters of each channel of its route, so they are one 32-byte
  // record per channel (two to a cache line) holding busy time in one field: while the channel is busy,
  // `busy` is the closed intervals' total minus the start of the open one, so busy up to `now` is busy + now.
  struct alignas(32) Counters {
    Bytes bytes;
    Time busy;
    int peak_flows = 0;
    int flows = 0;
    int active = 0;
  };

  // A flow event not yet counted; its route is pending_channels_[first, first + count).
  struct Pending {
    Time at;
    Bytes bytes;  // payload of an end
    std::uint32_t first;
    std::uint32_t count;
    bool end;
  };
  static constexpr std::size_t kBatch = 64;  // events queued before they are counted (more evict solver data)
  void queue(const FlowEvent& e, bool end);
  void count_pending() const;  // logically const: brings the counters up to date

  FlowNetwork& net_;
  mutable std::vector<Counters> channels_;
  mutable std::vector<Pending> pending_;
  mutable std::vector<ChannelId> pending_channels_;
};

}  // namespace cs
