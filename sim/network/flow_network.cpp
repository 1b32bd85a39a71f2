#include "sim/network/flow_network.hpp"

#include <algorithm>
#include <functional>

namespace cs {

FlowNetwork::FlowNetwork(EventEngine& engine, const Topology& topology) : engine_(engine), topo_(topology) {
  for (ChannelId c = 0; c < static_cast<ChannelId>(topology.channel_count()); ++c) {
    system_.add_constraint(topology.channel_capacity(c).value());
  }
}

void FlowNetwork::remove_observer(const FlowObserver& observer) {
  std::erase(observers_, &observer);
}

void FlowNetwork::start(std::span<const ChannelId> route, Bytes bytes, Time latency, std::function<void()> done,
                        double bandwidth_factor) {
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
  flow.done = std::move(done);
  flow.bytes = bytes;
  flow.remaining = bytes.value();
  flow.started = engine_.now();
  flow.rate = 0;
  flow.bound = MaxMinSystem::kUnbounded;
  if (bandwidth_factor < 1.0) {
    double narrowest = MaxMinSystem::kUnbounded;
    for (ChannelId c : route) narrowest = std::min(narrowest, system_.capacity(c));
    flow.bound = bandwidth_factor * narrowest;
  }
  flow.variable = kNone;
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
  flow.last = engine_.now();
  flow.variable = system_.add_variable(flow.route, 1.0, flow.bound);
  if (flow_of_variable_.size() <= flow.variable) flow_of_variable_.resize(flow.variable + 1, kNone);
  flow_of_variable_[flow.variable] = f;
  ++active_;
  for (FlowObserver* o : observers_) o->on_flow_start(FlowEvent{flow.started, engine_.now(), flow.bytes, flow.route});
  request_solve();
}

void FlowNetwork::request_solve() {
  if (solve_pending_) return;
  solve_pending_ = true;
  engine_.schedule_in(Time::zero(), [this] { solve(); });
}

void FlowNetwork::arm() {
  if (due_.empty() || due_.top().key >= wakeup_) return;
  wakeup_ = due_.top().key;
  engine_.schedule_at(wakeup_, [this] {
    if (engine_.now() == wakeup_) wakeup_ = Time::max();
    finish_due();
  });
}

void FlowNetwork::finish_due() {
  const Time now = engine_.now();
  finished_.clear();
  while (!due_.empty() && due_.top().key <= now) {
    const CompletionQueue::Entry d = due_.top();
    due_.pop();
    Flow& flow = flows_[d.id];
    system_.remove_variable(flow.variable);
    flow_of_variable_[flow.variable] = kNone;
    flow.variable = kNone;
    --active_;
    finished_.push_back(d.id);
  }
  if (!finished_.empty()) request_solve();
  // Callbacks last: they may start flows (and grow flows_), so each is moved out before it runs.
  for (std::size_t i = 0; i < finished_.size(); ++i) {
    const std::uint32_t f = finished_[i];
    for (FlowObserver* o : observers_) {
      o->on_flow_end(FlowEvent{flows_[f].started, now, flows_[f].bytes, flows_[f].route});
    }
    std::function<void()> done = std::move(flows_[f].done);
    flows_[f].done = nullptr;
    free_.push_back(f);
    if (done) done();
  }
  arm();
}

// Re-solves the components the starts and ends of this instant touched: first every flow of them moves its
// bytes at the old rate up to now, then takes its new rate and new completion time.
void FlowNetwork::solve() {
  solve_pending_ = false;
  if (!system_.has_pending_changes()) return;
  ++solves_;
  const Time now = engine_.now();
  const std::span<const MaxMinSystem::VariableId> changed = system_.solve();
  for (MaxMinSystem::VariableId v : changed) {
    Flow& flow = flows_[flow_of_variable_[v]];
    flow.remaining = std::max(0.0, flow.remaining - flow.rate * (now - flow.last).seconds());
    flow.last = now;
    flow.rate = system_.value(v);
    due_.set(flow_of_variable_[v], flow.rate > 0 ? now + Time::ceil_seconds(flow.remaining / flow.rate) : Time::max());
  }
  arm();
}

std::vector<Bandwidth> FlowNetwork::rates_on(ChannelId c) const {
  std::vector<Bandwidth> out;
  for (MaxMinSystem::VariableId v : system_.variables_on(c)) out.push_back(Bandwidth{flows_[flow_of_variable_[v]].rate});
  return out;
}

}  // namespace cs
