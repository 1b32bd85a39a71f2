#include "sim/network/flow_network.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace cs {

FlowNetwork::FlowNetwork(EventEngine& engine, const Topology& topology)
    : engine_(engine), topo_(topology), channels_(static_cast<std::size_t>(topology.channel_count())) {
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    channels_[c].capacity = topology.channel_capacity(static_cast<ChannelId>(c)).value();
  }
}

void FlowNetwork::start(std::span<const ChannelId> route, Bytes bytes, Time latency, std::function<void()> done) {
  ++started_;
  if (route.empty() || bytes.value() <= 0) {
    engine_.schedule_in(latency, std::move(done));
    return;
  }
  std::uint32_t f;
  if (!free_.empty()) {
    f = free_.back();
    free_.pop_back();
  } else {
    f = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
  }
  Flow& flow = flows_[f];
  flow.route.assign(route.begin(), route.end());
  flow.pos.resize(route.size());
  flow.done = std::move(done);
  flow.bytes = flow.remaining = bytes.value();
  flow.started = engine_.now();
  flow.rate = 0;
  flow.active = false;
  if (latency > Time::zero()) {
    waiting_.push_back({engine_.now() + latency, f, ++flow.version});
    std::push_heap(waiting_.begin(), waiting_.end(), std::greater<>{});
    arm_activation();
  } else {
    activate(f);
  }
}

void FlowNetwork::arm_activation() {
  if (waiting_.empty() || waiting_.front().at >= activation_wakeup_) return;
  activation_wakeup_ = waiting_.front().at;
  engine_.schedule_at(activation_wakeup_, [this] {
    if (engine_.now() == activation_wakeup_) activation_wakeup_ = Time::max();
    activate_due();
  });
}

void FlowNetwork::activate_due() {
  while (!waiting_.empty() && waiting_.front().at <= engine_.now()) {
    const std::uint32_t f = waiting_.front().flow;
    std::pop_heap(waiting_.begin(), waiting_.end(), std::greater<>{});
    waiting_.pop_back();
    activate(f);
  }
  arm_activation();
}

void FlowNetwork::activate(std::uint32_t f) {
  Flow& flow = flows_[f];
  flow.active = true;
  flow.last = engine_.now();
  ++active_;
  for (std::size_t h = 0; h < flow.route.size(); ++h) {
    Channel& ch = channels_[flow.route[h]];
    if (ch.flows.empty()) ch.busy_since = engine_.now();
    flow.pos[h] = static_cast<std::uint32_t>(ch.flows.size());
    ch.flows.emplace_back(f, static_cast<std::uint32_t>(h));
    ch.stats.peak_flows = std::max(ch.stats.peak_flows, static_cast<int>(ch.flows.size()));
    ++ch.stats.flows;
    mark_dirty(flow.route[h]);
  }
  request_solve();
}

void FlowNetwork::request_solve() {
  if (solve_pending_) return;
  solve_pending_ = true;
  engine_.schedule_in(Time::zero(), [this] { solve(); });
}

void FlowNetwork::arm() {
  while (!due_.empty()) {
    const Due& d = due_.front();
    const Flow& flow = flows_[d.flow];
    if (flow.active && flow.version == d.version) break;
    std::pop_heap(due_.begin(), due_.end(), std::greater<>{});
    due_.pop_back();
  }
  if (due_.empty() || due_.front().at >= wakeup_) return;
  wakeup_ = due_.front().at;
  engine_.schedule_at(wakeup_, [this] {
    if (engine_.now() == wakeup_) wakeup_ = Time::max();
    finish_due();
  });
}

void FlowNetwork::finish_due() {
  const Time now = engine_.now();
  finished_.clear();
  while (!due_.empty() && due_.front().at <= now) {
    const Due d = due_.front();
    std::pop_heap(due_.begin(), due_.end(), std::greater<>{});
    due_.pop_back();
    Flow& flow = flows_[d.flow];
    if (!flow.active || flow.version != d.version) continue;
    flow.active = false;
    --active_;
    for (std::size_t h = 0; h < flow.route.size(); ++h) {
      Channel& ch = channels_[flow.route[h]];
      const std::uint32_t p = flow.pos[h];
      const auto last = ch.flows.back();
      ch.flows[p] = last;
      flows_[last.first].pos[last.second] = p;
      ch.flows.pop_back();
      ch.stats.bytes += flow.bytes;
      if (ch.flows.empty()) ch.stats.busy += now - ch.busy_since;
      mark_dirty(flow.route[h]);
    }
    finished_.push_back(d.flow);
  }
  if (!finished_.empty()) request_solve();
  // Callbacks last: they may start flows (and grow flows_), so each is moved out before it runs.
  for (std::size_t i = 0; i < finished_.size(); ++i) {
    const std::uint32_t f = finished_[i];
    if (observer_) observer_(FlowRecord{flows_[f].started, engine_.now(), flows_[f].bytes, flows_[f].route});
    std::function<void()> done = std::move(flows_[f].done);
    flows_[f].done = nullptr;
    free_.push_back(f);
    if (done) done();
  }
  arm();
}

// Progressive filling over the component reachable from the dirty channels: repeatedly take the channel with
// the smallest fair share (capacity left / flows not yet fixed), fix its flows at that share, and take their
// share off every other channel they cross. The result is the max-min fair allocation (Bertsekas & Gallager,
// Data Networks, 6.5.2).
void FlowNetwork::solve() {
  solve_pending_ = false;
  if (dirty_.empty()) return;
  ++solves_;
  ++epoch_;
  const Time now = engine_.now();
  comp_channels_.clear();
  comp_flows_.clear();
  stack_.swap(dirty_);
  dirty_.clear();
  while (!stack_.empty()) {
    const ChannelId c = stack_.back();
    stack_.pop_back();
    Channel& ch = channels_[c];
    if (ch.mark == epoch_) continue;
    ch.mark = epoch_;
    comp_channels_.push_back(c);
    for (const auto& [f, hop] : ch.flows) {
      Flow& flow = flows_[f];
      if (flow.mark == epoch_) continue;
      flow.mark = epoch_;
      comp_flows_.push_back(f);
      for (ChannelId other : flow.route) {
        if (channels_[other].mark != epoch_) stack_.push_back(other);
      }
    }
  }
  largest_component_ = std::max(largest_component_, comp_flows_.size());
  for (std::uint32_t f : comp_flows_) {  // bytes moved at the old rates up to now
    Flow& flow = flows_[f];
    flow.remaining = std::max(0.0, flow.remaining - flow.rate * (now - flow.last).seconds());
    flow.last = now;
  }
  shares_.clear();
  for (ChannelId c : comp_channels_) {
    Channel& ch = channels_[c];
    ch.left = ch.capacity;
    ch.unfixed = static_cast<std::uint32_t>(ch.flows.size());
    ++ch.version;
    if (ch.unfixed > 0) shares_.push_back({ch.left / ch.unfixed, c, ch.version});
  }
  std::make_heap(shares_.begin(), shares_.end(), std::greater<>{});
  while (!shares_.empty()) {
    const Share s = shares_.front();
    std::pop_heap(shares_.begin(), shares_.end(), std::greater<>{});
    shares_.pop_back();
    Channel& bottleneck = channels_[s.channel];
    if (s.version != bottleneck.version || bottleneck.unfixed == 0) continue;
    for (const auto& [f, hop] : bottleneck.flows) {
      Flow& flow = flows_[f];
      if (flow.fixed == epoch_) continue;
      flow.fixed = epoch_;
      flow.rate = s.share;
      for (ChannelId c : flow.route) {
        Channel& ch = channels_[c];
        ch.left = std::max(0.0, ch.left - s.share);
        --ch.unfixed;
        ++ch.version;
        if (ch.unfixed > 0 && c != s.channel) {
          shares_.push_back({ch.left / ch.unfixed, c, ch.version});
          std::push_heap(shares_.begin(), shares_.end(), std::greater<>{});
        }
      }
    }
  }
  for (std::uint32_t f : comp_flows_) {
    Flow& flow = flows_[f];
    ++flow.version;
    const Time at = flow.rate > 0 ? now + Time::ceil_seconds(flow.remaining / flow.rate) : Time::max();
    due_.push_back({at, f, flow.version});
    std::push_heap(due_.begin(), due_.end(), std::greater<>{});
  }
  arm();
}

Time FlowNetwork::busy_time(ChannelId c) const {
  const Channel& ch = channels_[c];
  return ch.stats.busy + (ch.flows.empty() ? Time::zero() : engine_.now() - ch.busy_since);
}

std::vector<double> FlowNetwork::rates_on(ChannelId c) const {
  std::vector<double> out;
  for (const auto& [f, hop] : channels_[c].flows) out.push_back(flows_[f].rate);
  return out;
}

}  // namespace cs
