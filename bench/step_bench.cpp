// Benchmark of one whole evaluation (not a test; results go in docs/performance.md):
//   bench_step [scenario=bench/scenarios/gpt3-175b-16384xh100.yaml] [repeats=1]
// Loads the scenario (topology built, everything checked), then runs run_scenario() `repeats` times and prints
// the wall and CPU time of each phase, the simulated step, and the flow model's work (flows, re-solves).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "sim/scenario/runner.hpp"

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec) * 1e-6;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : std::string(CS_SOURCE_DIR) + "/bench/scenarios/gpt3-175b-16384xh100.yaml";
  const int repeats = argc > 2 ? std::stoi(argv[2]) : 1;
  auto t0 = std::chrono::steady_clock::now();
  double c0 = cpu_seconds();
  const cs::Scenario sc = cs::load_scenario(path);
  std::printf("load      %8.3f s wall %8.3f s cpu  (%s, %d GPUs)\n", seconds_since(t0), cpu_seconds() - c0,
              sc.name.c_str(), sc.gpus);
  for (int i = 0; i < repeats; ++i) {
    t0 = std::chrono::steady_clock::now();
    c0 = cpu_seconds();
    const cs::RunResult r = cs::run_scenario(sc);
    const double wall = seconds_since(t0), cpu = cpu_seconds() - c0;
    std::printf("run       %8.3f s wall %8.3f s cpu  step %s, %llu engine events", wall, cpu,
                cs::to_string(r.step.step_time).c_str(), static_cast<unsigned long long>(r.step.events));
    if (r.network.links) {
      std::printf(", %llu flows, %llu re-solves, largest component %zu flows",
                  static_cast<unsigned long long>(r.network.links->flows_started),
                  static_cast<unsigned long long>(r.network.links->solves), r.network.links->largest_component_flows);
    }
    std::printf("\n");
  }
  return 0;
}
