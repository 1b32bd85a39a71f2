// Benchmark of the request-level serving simulator (not a test; results go in docs/performance.md):
//   bench_serving [rate=50] [duration_s=3600] [batching=continuous]
// Issue 43's case: one hour of Poisson traffic at 50 requests/s (about 180,000 requests) against 8 replicas of
// Llama 3 70B at TP4 on 32 H100 (h100-sxm profile, DGX H100 NVLink for the TP all-reduces), prompts lognormal
// (mean 1,024 tokens, sigma 1, at most 8,192), outputs lognormal (mean 256, sigma 1, at most 2,048), vLLM's
// default engine limits. Prints the wall and CPU time of the run (memory plan and simulation) and what it found.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

#include "sim/collectives/calibration.hpp"
#include "sim/hardware/device_profile.hpp"
#include "sim/input/input_node.hpp"
#include "sim/serving/serving_runner.hpp"
#include "sim/workload/model_spec.hpp"

int main(int argc, char** argv) {
  const double rate = argc > 1 ? std::stod(argv[1]) : 50.0;
  const double duration = argc > 2 ? std::stod(argv[2]) : 3600.0;
  const std::string batching = argc > 3 ? argv[3] : "continuous";

  const cs::ModelSpec model = cs::parse_model_spec(cs::InputNode::parse("preset: llama3-70b\n", "bench"));
  const cs::DeviceProfile profile = cs::find_device_profile("h100-sxm");
  const auto compute = cs::make_cost_model(profile);
  const cs::Topology topology = cs::load_topology("dgx-h100", 8);
  const std::string text = "deployment: {tp: 4, replicas: 8}\n"
                           "engine: {batching: " + batching + "}\n"
                           "load:\n  rate: " + std::to_string(rate) + "\n"
                           "  prompt: {dist: lognormal, mean: 1024, sigma: 1.0, max: 8192}\n"
                           "  output: {dist: lognormal, mean: 256, sigma: 1.0, max: 2048}\n"
                           "duration: " + std::to_string(duration) + "s\n";
  const cs::ServingConfig config = cs::parse_serving_config(cs::InputNode::parse(text, "bench"));
  const cs::TopologyComm comm(topology, config.deployment.tp, cs::CollectiveCalibration::datasheet_defaults());

  const auto wall0 = std::chrono::steady_clock::now();
  const std::clock_t cpu0 = std::clock();  // the process's CPU time (user and system)
  const cs::ServingRun run = cs::run_serving(config, model, *compute, comm, profile.gpu.memory);
  const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const cs::ServingResult& r = run.result;
  std::printf("run       %8.3f s wall %8.3f s cpu  %lld requests, %lld iterations, %llu events\n", wall, cpu,
              static_cast<long long>(r.arrived), static_cast<long long>(r.iterations),
              static_cast<unsigned long long>(run.events));
  std::printf("memory    weights %.1f GiB, activations %.2f GiB, KV cache %.1f GiB per GPU: %lld blocks of %lld tokens per replica\n",
              r.memory.weights.value() / 1073741824.0, r.memory.activations.value() / 1073741824.0,
              r.memory.kv_cache.value() / 1073741824.0, static_cast<long long>(r.memory.blocks),
              static_cast<long long>(r.memory.block_size));
  std::printf("latency   TTFT p50 %.3f p99 %.3f s, TPOT p50 %.1f p99 %.1f ms, E2E p50 %.2f p99 %.2f s\n", r.ttft.p50_s,
              r.ttft.p99_s, r.tpot.p50_s * 1e3, r.tpot.p99_s * 1e3, r.e2e.p50_s, r.e2e.p99_s);
  std::printf("served    %.2f requests/s, %.0f input and %.0f output tokens/s, goodput %.2f requests/s, GPU busy %.1f%%\n",
              r.requests_per_s, r.input_tokens_per_s, r.output_tokens_per_s, r.goodput_per_s, 100.0 * r.gpu_busy);
  std::printf("kv cache  occupancy mean %.1f%% max %.1f%%, %lld preemptions; %s\n", 100.0 * r.kv_occupancy_mean,
              100.0 * r.kv_occupancy_max, static_cast<long long>(r.preemptions), r.queue.message.c_str());
  return 0;
}
