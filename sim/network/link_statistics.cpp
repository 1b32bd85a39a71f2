#include "sim/network/link_statistics.hpp"

#include <algorithm>
#include <array>

namespace cs {

LinkStatistics::LinkStatistics(FlowNetwork& net)
    : net_(net), channels_(static_cast<std::size_t>(net.topology().channel_count())) {
  net_.add_observer(*this);
}

LinkStatistics::~LinkStatistics() { net_.remove_observer(*this); }

namespace {

// A route's ~10 channel records lie far apart; asking for all of them first lets their cache misses overlap.
template <class Record>
void prefetch_channels(const std::vector<Record>& channels, std::span<const ChannelId> route) {
  for (ChannelId c : route) __builtin_prefetch(&channels[c], 1);
}

}  // namespace

void LinkStatistics::on_flow_start(const FlowEvent& e) {
  prefetch_channels(channels_, e.route);
  for (ChannelId c : e.route) {
    Counters& s = channels_[c];
    if (s.active++ == 0) s.busy -= e.at;
    s.peak_flows = std::max(s.peak_flows, s.active);
    ++s.flows;
  }
}

void LinkStatistics::on_flow_end(const FlowEvent& e) {
  prefetch_channels(channels_, e.route);
  for (ChannelId c : e.route) {
    Counters& s = channels_[c];
    s.bytes += e.bytes;
    if (--s.active == 0) s.busy += e.at;
  }
}

Time LinkStatistics::busy_time(ChannelId c, Time now) const {
  const Counters& s = channels_[c];
  return s.active > 0 ? s.busy + now : s.busy;
}

LinkReport LinkStatistics::report(Time now, Time elapsed, int top_n) const {
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
