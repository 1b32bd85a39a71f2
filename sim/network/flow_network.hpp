// The flow-level network: every transfer is a flow on a route of directed channels, and concurrent flows share
// each channel by max-min fairness (progressive filling, as SimGrid's lmm solver), recomputed whenever a flow
// starts or ends -- but only over the connected component of channels and flows that the change touches.
//
// A flow first waits out its path latency (it holds no bandwidth meanwhile), then moves its bytes at its fair
// rate, which changes as other flows come and go; so its duration is latency + bytes at its fair rate over time.
//
// Complexity per re-solve of a component with F flows, C channels and H hops per flow:
// O((F*H + C) log C) (a heap of channel fair shares). Starts and ends at the same instant are batched into one
// re-solve, and all activations (ends of latency phases) at one instant share one engine event. Flow records
// live in a slab with a free list, so steady-state operation does not allocate.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "sim/core/event_engine.hpp"
#include "sim/core/units.hpp"
#include "sim/topology/topology.hpp"

namespace cs {

/// What one channel (one direction of one link) carried.
struct ChannelStats {
  double bytes = 0;      ///< bytes of completed flows that crossed it
  Time busy;             ///< time with at least one active flow
  int peak_flows = 0;    ///< most flows sharing it at once
  int flows = 0;         ///< flows that crossed it
};

/// What an observer sees when a flow ends (tracing, custom statistics).
struct FlowRecord {
  Time started;                       ///< when start() was called
  Time ended;
  double bytes = 0;
  std::span<const ChannelId> route;   ///< valid during the callback only
};

class FlowNetwork {
 public:
  FlowNetwork(EventEngine& engine, const Topology& topology);
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  /// Starts a flow of `bytes` over `route` (channels of the topology) at engine.now(); `latency` is waited
  /// before the bytes move. `done` runs on the engine when the last byte arrives. A route with no channel
  /// (a GPU to itself) or zero bytes completes after `latency`.
  void start(std::span<const ChannelId> route, Bytes bytes, Time latency, std::function<void()> done);

  /// Subscribes `observer` to every flow's end (one observer; pass nullptr to remove). Runs before the flow's
  /// own completion callback.
  void on_flow_end(std::function<void(const FlowRecord&)> observer) { observer_ = std::move(observer); }

  [[nodiscard]] const Topology& topology() const noexcept { return topo_; }
  [[nodiscard]] const ChannelStats& stats(ChannelId c) const { return channels_[c].stats; }
  /// Busy time including a flow still in progress at engine.now().
  [[nodiscard]] Time busy_time(ChannelId c) const;
  /// The current fair rate of each active flow on channel `c`, in bytes/s (for tests and tracing).
  [[nodiscard]] std::vector<double> rates_on(ChannelId c) const;
  [[nodiscard]] std::size_t active_flows() const noexcept { return active_; }
  [[nodiscard]] std::uint64_t flows_started() const noexcept { return started_; }
  [[nodiscard]] std::uint64_t solves() const noexcept { return solves_; }
  /// Most flows re-solved at once (the union of the components touched at one instant).
  [[nodiscard]] std::size_t largest_component() const noexcept { return largest_component_; }

 private:
  struct Flow {
    std::vector<ChannelId> route;
    std::vector<std::uint32_t> pos;  // index of this flow in each route channel's list
    std::function<void()> done;
    double bytes = 0;
    Time started;
    double remaining = 0;
    double rate = 0;
    Time last;
    std::uint32_t version = 0;
    std::uint32_t mark = 0;
    std::uint32_t fixed = 0;
    bool active = false;
  };
  struct Channel {
    double capacity = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> flows;  // (flow, hop)
    ChannelStats stats;
    Time busy_since;
    double left = 0;          // solver: capacity not yet given out
    std::uint32_t unfixed = 0;
    std::uint32_t version = 0;
    std::uint32_t mark = 0;
  };
  struct Due {
    Time at;
    std::uint32_t flow;
    std::uint32_t version;
    bool operator>(const Due& o) const noexcept { return at != o.at ? at > o.at : flow > o.flow; }
  };
  struct Share {
    double share;
    std::uint32_t channel;
    std::uint32_t version;
    bool operator>(const Share& o) const noexcept { return share != o.share ? share > o.share : channel > o.channel; }
  };

  void activate(std::uint32_t f);
  void activate_due();
  void arm_activation();
  void finish_due();
  void solve();
  void request_solve();
  void arm();
  void mark_dirty(ChannelId c) { dirty_.push_back(c); }

  EventEngine& engine_;
  const Topology& topo_;
  std::function<void(const FlowRecord&)> observer_;
  std::vector<Channel> channels_;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_;
  std::vector<Due> due_;      // min-heap (std::greater) of completion times; stale entries skipped
  std::vector<Due> waiting_;  // min-heap of flows in their latency phase, by activation time
  Time activation_wakeup_ = Time::max();
  std::vector<ChannelId> dirty_;
  bool solve_pending_ = false;
  Time wakeup_ = Time::max();
  std::uint32_t epoch_ = 0;
  std::size_t active_ = 0;
  std::uint64_t started_ = 0;
  std::uint64_t solves_ = 0;
  std::size_t largest_component_ = 0;
  // Scratch space reused by every solve.
  std::vector<ChannelId> stack_, comp_channels_;
  std::vector<std::uint32_t> comp_flows_, finished_;
  std::vector<Share> shares_;
};

}  // namespace cs
