// The flow-level network: every transfer is a flow on a route of directed channels, and concurrent flows share
// each channel by max-min fairness (max_min_system.hpp, as SimGrid's lmm solver), re-solved whenever a flow
// starts or ends -- but only over the connected component of channels and flows that the change touches.
//
// A flow first waits out its path latency (it holds no bandwidth meanwhile), then moves its bytes at its fair
// rate, which changes as other flows come and go; so its duration is latency + bytes at its fair rate over time.
// A flow may carry a bandwidth factor f in (0, 1] (calibration data: the fraction of the link bandwidth a
// protocol achieves): its rate is then bounded by f x the smallest capacity on its route, while the bytes it
// moves -- and what the links report -- stay its real payload.
//
// Starts and ends at the same instant are batched into one re-solve, and all activations (ends of latency
// phases) at one instant share one engine event. Flow records live in a slab with a free list, so steady-state
// operation does not allocate. Observers (FlowObserver) see every flow start moving and end: link statistics
// and tracing subscribe there.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "sim/core/event_engine.hpp"
#include "sim/core/units.hpp"
#include "sim/network/completion_queue.hpp"
#include "sim/network/max_min_system.hpp"
#include "sim/topology/topology.hpp"

namespace cs {

/// One flow as observers see it.
struct FlowEvent {
  Time started;                       ///< when start() was called
  Time at;                            ///< when this event happens (end of latency, or last byte)
  Bytes bytes;                        ///< payload
  std::span<const ChannelId> route;   ///< valid during the callback only
};

/// Subscribers to a FlowNetwork's flows (link statistics, traces). Both run on the engine, at `event.at`.
class FlowObserver {
 public:
  virtual ~FlowObserver() = default;
  /// The flow's latency has passed and it starts moving bytes over its route.
  virtual void on_flow_start(const FlowEvent& /*event*/) {}
  /// The flow's last byte arrived (runs before the flow's own completion callback).
  virtual void on_flow_end(const FlowEvent& /*event*/) {}
};

class FlowNetwork {
 public:
  FlowNetwork(EventEngine& engine, const Topology& topology);
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  /// Starts a flow of `bytes` over `route` (channels of the topology) at engine.now(); `latency` is waited
  /// before the bytes move; `bandwidth_factor` in (0, 1] bounds its rate at that fraction of the route's
  /// smallest capacity. `done` runs on the engine when the last byte arrives. A route with no channel (a GPU
  /// to itself) or zero bytes completes after `latency`.
  void start(std::span<const ChannelId> route, Bytes bytes, Time latency, std::function<void()> done,
             double bandwidth_factor = 1.0);

  /// Subscribes `observer` (not owned; it must outlive the network or be removed first).
  void add_observer(FlowObserver& observer) { observers_.push_back(&observer); }
  void remove_observer(const FlowObserver& observer);

  [[nodiscard]] const Topology& topology() const noexcept { return topo_; }
  /// The current fair rate of each active flow on channel `c` (for tests and tracing).
  [[nodiscard]] std::vector<Bandwidth> rates_on(ChannelId c) const;
  [[nodiscard]] std::size_t active_flows() const noexcept { return active_; }
  [[nodiscard]] std::uint64_t flows_started() const noexcept { return started_; }
  [[nodiscard]] std::uint64_t solves() const noexcept { return solves_; }
  /// Most flows re-solved at once (the union of the components touched at one instant).
  [[nodiscard]] std::size_t largest_component() const noexcept { return system_.largest_component(); }

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  struct Flow {
    std::vector<ChannelId> route;
    std::function<void()> done;
    Bytes bytes;
    Time started;
    double bound = MaxMinSystem::kUnbounded;  // bytes/s
    double remaining = 0;                     // bytes
    double rate = 0;                          // bytes/s, as last solved
    Time last;                                // when `remaining` was last brought up to date
    std::uint32_t variable = kNone;           // in system_, while moving bytes
    std::uint32_t version = 0;
  };
  struct Due {
    Time at;
    std::uint32_t flow;
    std::uint32_t version;
    bool operator>(const Due& o) const noexcept { return at != o.at ? at > o.at : flow > o.flow; }
  };

  void activate(std::uint32_t f);
  void activate_due();
  void arm_activation();
  void finish_due();
  void solve();
  void request_solve();
  void arm();

  EventEngine& engine_;
  const Topology& topo_;
  MaxMinSystem system_;  // constraint c is channel c
  std::vector<FlowObserver*> observers_;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_;
  std::vector<std::uint32_t> flow_of_variable_;
  CompletionQueue due_;       // completion time of every flow moving bytes
  std::vector<Due> waiting_;  // min-heap (std::greater) of flows in their latency phase, by activation time
  Time activation_wakeup_ = Time::max();
  bool solve_pending_ = false;
  Time wakeup_ = Time::max();
  std::size_t active_ = 0;
  std::uint64_t started_ = 0;
  std::uint64_t solves_ = 0;
  std::vector<std::uint32_t> finished_;
};

}  // namespace cs
