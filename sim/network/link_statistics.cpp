#include "sim/network/link_statistics.hpp"

#include <algorithm>
#include <array>

namespace cs {

nlohmann::json link_statistics_json(const FlowNetwork& net, Time elapsed, int top_n) {
  const Topology& t = net.topology();
  struct Tier {
    int used = 0;
    double bytes = 0;
    double busy_sum = 0;
    double busy_max = 0;
    int peak = 0;
    long flows = 0;
  };
  std::array<Tier, kLinkTierCount> tiers{};
  std::vector<ChannelId> used;
  for (ChannelId c = 0; c < static_cast<ChannelId>(t.channel_count()); ++c) {
    const ChannelStats& s = net.stats(c);
    if (s.flows == 0) continue;
    used.push_back(c);
    Tier& tier = tiers[static_cast<std::size_t>(t.channel_edge(c).tier)];
    const double busy = net.busy_time(c).seconds();
    ++tier.used;
    tier.bytes += s.bytes;
    tier.busy_sum += busy;
    tier.busy_max = std::max(tier.busy_max, busy);
    tier.peak = std::max(tier.peak, s.peak_flows);
    tier.flows += s.flows;
  }
  nlohmann::json by_tier = nlohmann::json::array();
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    const Tier& tier = tiers[i];
    if (tier.used == 0) continue;
    by_tier.push_back({{"tier", std::string(to_string(static_cast<LinkTier>(i)))},
                       {"channels_used", tier.used},
                       {"flows", tier.flows},
                       {"bytes", tier.bytes},
                       {"busy_s_max", tier.busy_max},
                       {"busy_s_mean", tier.busy_sum / tier.used},
                       {"peak_concurrent_flows", tier.peak}});
  }
  const std::size_t n = std::min(used.size(), static_cast<std::size_t>(std::max(0, top_n)));
  std::partial_sort(used.begin(), used.begin() + static_cast<std::ptrdiff_t>(n), used.end(),
                    [&](ChannelId a, ChannelId b) {
                      const double ba = net.stats(a).bytes, bb = net.stats(b).bytes;
                      return ba != bb ? ba > bb : a < b;
                    });
  nlohmann::json top = nlohmann::json::array();
  for (std::size_t i = 0; i < n; ++i) {
    const ChannelId c = used[i];
    const ChannelStats& s = net.stats(c);
    const double busy = net.busy_time(c).seconds();
    top.push_back({{"link", t.channel_name(c)},
                   {"tier", std::string(to_string(t.channel_edge(c).tier))},
                   {"capacity_Bps", t.channel_capacity(c).value()},
                   {"bytes", s.bytes},
                   {"busy_s", busy},
                   {"utilization", elapsed > Time::zero() ? busy / elapsed.seconds() : 0.0},
                   {"peak_concurrent_flows", s.peak_flows}});
  }
  return {{"by_tier", by_tier}, {"top_links", top}, {"channels_used", used.size()},
          {"flows_started", net.flows_started()}, {"solves", net.solves()},
          {"largest_component_flows", net.largest_component()}};
}

}  // namespace cs
