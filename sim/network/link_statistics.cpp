#include "sim/network/link_statistics.hpp"

#include <algorithm>
#include <array>

namespace cs {

LinkStatistics::LinkStatistics(FlowNetwork& net)
    : net_(net), channels_(static_cast<std::size_t>(net.topology().channel_count())) {
  net_.add_observer(*this);
}

LinkStatistics::~LinkStatistics() { net_.remove_observer(*this); }

void LinkStatistics::on_flow_start(const FlowEvent& e) { queue(e, false); }

void LinkStatistics::on_flow_end(const FlowEvent& e) { queue(e, true); }

void LinkStatistics::queue(const FlowEvent& e, bool end) {
  pending_.push_back({e.at, e.bytes, static_cast<std::uint32_t>(pending_channels_.size()),
                      static_cast<std::uint32_t>(e.route.size()), end});
  for (ChannelId c : e.route) pending_channels_.push_back(c);  // routes are short: no call to memmove
  if (pending_.size() >= kBatch) count_pending();
}

void LinkStatistics::count_pending() const {
  // Four events ahead is ~30 channel records in flight: enough to hide the memory latency.
  constexpr std::size_t kAhead = 4;
  const std::size_t n = pending_.size();
  if (n == 0) return;
  auto fetch = [this](const Pending& p) {
    for (std::uint32_t i = p.first; i < p.first + p.count; ++i) __builtin_prefetch(&channels_[pending_channels_[i]], 1);
  };
  for (std::size_t i = 0; i < std::min(kAhead, n); ++i) fetch(pending_[i]);
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) fetch(pending_[i + kAhead]);
    const Pending& p = pending_[i];
    const std::span<const ChannelId> route(pending_channels_.data() + p.first, p.count);
    if (p.end) {
      for (ChannelId c : route) {
        Counters& s = channels_[c];
        s.bytes += p.bytes;
        if (--s.active == 0) s.busy += p.at;
      }
    } else {
      for (ChannelId c : route) {
        Counters& s = channels_[c];
        if (s.active++ == 0) s.busy -= p.at;
        s.peak_flows = std::max(s.peak_flows, s.active);
        ++s.flows;
      }
    }
  }
  pending_.clear();
  pending_channels_.clear();
}

ChannelStats LinkStatistics::channel(ChannelId c) const {
  count_pending();
  const Counters& s = channels_[c];
  return {s.bytes, s.peak_flows, s.flows, s.active};
}

Time LinkStatistics::busy_time(ChannelId c, Time now) const {
  count_pending();
  const Counters& s = channels_[c];
  return s.active > 0 ? s.busy + now : s.busy;
}

LinkReport LinkStatistics::report(Time now, Time elapsed, int top_n) const {
  count_pending();
  const Topology& t = net_.topology();
  struct Tier {
    int used = 0;
    double bytes = 0;
    Time busy_sum;
    Time busy_max;
    int peak = 0;
    long flows = 0;
  };
  std::array<Tier, kLinkTierCount> tiers{};
  std::vector<ChannelId> used;
  for (ChannelId c = 0; c < static_cast<ChannelId>(channels_.size()); ++c) {
    const Counters& s = channels_[c];
    if (s.flows == 0) continue;
    used.push_back(c);
    Tier& tier = tiers[static_cast<std::size_t>(t.channel_edge(c).tier)];
    const Time busy = busy_time(c, now);
    ++tier.used;
    tier.bytes += s.bytes.value();
    tier.busy_sum += busy;
    tier.busy_max = std::max(tier.busy_max, busy);
    tier.peak = std::max(tier.peak, s.peak_flows);
    tier.flows += s.flows;
  }
  LinkReport r;
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    const Tier& tier = tiers[i];
    if (tier.used == 0) continue;
    r.by_tier.push_back({static_cast<LinkTier>(i), tier.used, tier.flows, Bytes{tier.bytes},
                         tier.busy_max, tier.busy_sum,
                         tier.peak});
  }
  const std::size_t n = std::min(used.size(), static_cast<std::size_t>(std::max(0, top_n)));
  std::partial_sort(used.begin(), used.begin() + static_cast<std::ptrdiff_t>(n), used.end(),
                    [&](ChannelId a, ChannelId b) {
                      const Bytes ba = channels_[a].bytes, bb = channels_[b].bytes;
                      return ba != bb ? ba > bb : a < b;
                    });
  for (std::size_t i = 0; i < n; ++i) {
    const ChannelId c = used[i];
    const Counters& s = channels_[c];
    const Time busy = busy_time(c, now);
    r.top_links.push_back({t.channel_name(c), t.channel_edge(c).tier, t.channel_capacity(c), s.bytes, busy,
                           elapsed > Time::zero() ? busy.seconds() / elapsed.seconds() : 0.0, s.peak_flows});
  }
  r.channels_used = used.size();
  r.flows_started = net_.flows_started();
  r.solves = net_.solves();
  r.largest_component_flows = net_.largest_component();
  return r;
}

}  // namespace cs
