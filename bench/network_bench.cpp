// Benchmark of the flow-level network model (not a test; results go in docs/network.md):
//   bench_network [gpus=1024] [bytes=1GiB] [algo=ring]
// Builds the DGX SuperPOD fabric for `gpus` GPUs, runs one all-reduce over all of them, and the data-parallel
// all-reduce of a TP8 x PP8 x DP(gpus/64) layout (all DP groups at once), reporting wall time, engine events,
// events per second, flows and peak resident memory.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "sim/collectives/flow_collectives.hpp"
#include "sim/network/link_statistics.hpp"

namespace {

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux: kilobytes
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void run_case(const char* name, const cs::Topology& topo, cs::CollectiveRequest req) {
  cs::EventEngine engine;
  cs::FlowCollectives model(engine, topo, cs::CollectiveCalibration::datasheet_defaults());
  const cs::LinkStatistics links(*model.flow_network());
  const auto t0 = std::chrono::steady_clock::now();
  cs::Time end;
  model.start(req, [&] { end = engine.now(); });
  engine.run();
  const double wall = seconds_since(t0);
  const auto n = static_cast<int>(req.groups.front().size());
  const double busbw = req.bytes.value() / end.seconds() * cs::bus_bandwidth_factor(req.kind, n);
  // Events: engine events are few (activations and completions at one instant share one); flow events (each
  // flow's start and end) measure the model's work.
  std::printf("%-34s %10s %6d %8llu %8llu %9.3f %12.0f %9.1f %10s %8.1f\n", name,
              std::string(cs::to_string(model.algorithm_for(req))).c_str(), static_cast<int>(req.groups.size()),
              static_cast<unsigned long long>(model.network().flows_started()),
              static_cast<unsigned long long>(engine.executed()), wall,
              2.0 * static_cast<double>(model.network().flows_started()) / wall, busbw / 1e9, cs::to_string(end).c_str(),
              peak_rss_mib());
  if (std::getenv("BENCH_LINKS") != nullptr) {
    for (const cs::LinkSummary& l : links.report(end, end, 5).top_links) {
      std::printf("  %-32s %-10s %s in %s busy (%.1f%%), peak %d flows\n", l.link.c_str(),
                  std::string(cs::to_string(l.tier)).c_str(), cs::to_string(l.bytes).c_str(),
                  cs::to_string(l.busy).c_str(), 100 * l.utilization, l.peak_concurrent_flows);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int gpus = argc > 1 ? std::stoi(argv[1]) : 1024;
  const cs::Bytes bytes = argc > 2 ? cs::parse_bytes(argv[2]) : cs::Bytes{1024.0 * 1024 * 1024};
  const auto algo = argc > 3 ? cs::parse_algorithm(argv[3]) : cs::CollectiveAlgorithm::ring;
  const auto t0 = std::chrono::steady_clock::now();
  const cs::Topology topo = cs::load_topology("dgx-h100", gpus);
  std::printf("# %s, %d GPUs: built in %.3f s (%d vertices, %d links), peak RSS %.1f MiB\n", topo.name().c_str(), gpus,
              seconds_since(t0), topo.vertex_count(), topo.edge_count(), peak_rss_mib());
  std::printf("%-34s %10s %6s %8s %8s %9s %12s %9s %10s %8s\n", "# case", "algo", "groups", "flows", "engine_ev",
              "wall_s", "flow_ev/s", "busbw_GB/s", "sim_time", "rss_MiB");
  std::vector<int> all;
  for (int r = 0; r < gpus; ++r) all.push_back(r);
  run_case("all-reduce, all GPUs", topo, {cs::CollectiveKind::all_reduce, bytes, {all}, "", algo.value_or(cs::CollectiveAlgorithm::ring)});
  run_case("all-reduce, all GPUs (again)", topo, {cs::CollectiveKind::all_reduce, bytes, {all}, "", algo.value_or(cs::CollectiveAlgorithm::ring)});
  if (gpus % 64 == 0 && gpus >= 128) {
    // TP8 x PP8 x DP: rank = dp * 64 + pp * 8 + tp; every (pp, tp) has one DP group, all start together.
    cs::CollectiveRequest dp{cs::CollectiveKind::all_reduce, bytes, {}, "dp grads"};
    for (int mp = 0; mp < 64; ++mp) {
      std::vector<int>& group = dp.groups.emplace_back();
      for (int d = 0; d < gpus / 64; ++d) group.push_back(d * 64 + mp);
    }
    run_case("DP all-reduce, TP8 PP8 (64 groups)", topo, dp);
  }
  if (gpus % 64 == 0 && gpus >= 128) {
    // A replay-like stream: 3,000 collectives at 1,024 GPUs (fewer above, same total flows), one after another, cycling through TP all-reduce (all TP groups at
    // once, 16 MiB), PP send/recv (every stage boundary, 32 MiB) and DP all-reduce (all DP groups, 256 MiB).
    cs::EventEngine engine;
    cs::FlowCollectives model(engine, topo, cs::CollectiveCalibration::datasheet_defaults());
    cs::CollectiveRequest tp{cs::CollectiveKind::all_reduce, cs::Bytes{16.0 * 1024 * 1024}, {}, "tp"};
    for (int g = 0; g < gpus / 8; ++g) tp.groups.push_back({g * 8, g * 8 + 1, g * 8 + 2, g * 8 + 3, g * 8 + 4, g * 8 + 5, g * 8 + 6, g * 8 + 7});
    cs::CollectiveRequest pp{cs::CollectiveKind::send_recv, cs::Bytes{32.0 * 1024 * 1024}, {}, "pp"};
    for (int d = 0; d < gpus / 64; ++d) {
      for (int p = 0; p + 1 < 8; ++p) {
        for (int t = 0; t < 8; ++t) pp.groups.push_back({d * 64 + p * 8 + t, d * 64 + (p + 1) * 8 + t});
      }
    }
    cs::CollectiveRequest dp{cs::CollectiveKind::all_reduce, cs::Bytes{256.0 * 1024 * 1024}, {}, "dp"};
    for (int mp = 0; mp < 64; ++mp) {
      std::vector<int>& group = dp.groups.emplace_back();
      for (int d = 0; d < gpus / 64; ++d) group.push_back(d * 64 + mp);
    }
    const cs::CollectiveRequest* cycle[] = {&tp, &pp, &dp};
    int issued = 0;
    const int count = std::max(30, 3000 * 1024 / gpus);
    std::function<void()> next = [&] {
      if (issued == count) return;
      model.start(*cycle[issued++ % 3], next);
    };
    const auto t1 = std::chrono::steady_clock::now();
    next();
    engine.run();
    const double wall = seconds_since(t1);
    std::printf("# stream of %d collectives (TP/PP/DP): %llu flows, %llu engine events, %.3f s wall, %.0f flow events/s, "
                "simulated %s, peak RSS %.1f MiB, %llu solves, largest component %zu flows\n",
                count, static_cast<unsigned long long>(model.network().flows_started()),
                static_cast<unsigned long long>(engine.executed()), wall,
                2.0 * static_cast<double>(model.network().flows_started()) / wall, cs::to_string(engine.now()).c_str(),
                peak_rss_mib(),
                static_cast<unsigned long long>(model.network().solves()), model.network().largest_component());
  }
  return 0;
}
