// clustersim-calibrate: measures the GPUs it finds and writes a samples file (docs/calibration.md).
//
//   clustersim-calibrate [--quick] [--out FILE] [--only gemm,memory,nccl,power] [--gpus N] [--device D]
//                        [--shape-seed S] [--budget-ms B] [--clocks burst|sustained] [--layouts tn,nn,nt]
//                        [--random-shapes N] [--random-align A] [--warmup-s MIN] [--trace FILE]
//
// --clocks burst (the default) times each repetition after an idle gap, as runs 1-3 did: the GPU runs at its
// highest clock. --clocks sustained first keeps the GPU busy with back-to-back GEMMs until its clock and
// power settle (--warmup-s, 20 s at least), then times every kernel back to back with a filler GEMM between
// measurements, so the GPU never idles: the clocks a training step sees (kernel_timer.hpp). Either way every
// sample carries the NVML SM clock, board power and temperature over its timed window. --layouts adds the NN
// and NT layouts for bf16 GEMMs. --random-align A makes every random shape's sizes multiples of A (by
// default they alternate between multiples of 64 and odd sizes). --trace writes the NVML readings (every 100 ms) as CSV. The runner
// never changes clocks or power limits.
//
// --shape-seed draws another set of random GEMM shapes (the transformer grid stays the same): a run with a
// new seed measures shapes no earlier fit has seen. --budget-ms sets the timed time per measurement (30 ms,
// 12 with --quick), split over its 5-25 repetitions.
//
// Samples are written and flushed as they are measured, so a run cut short keeps what it measured. The
// file is then imported and fitted on any machine with `clustersim-fit` (no GPU needed).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <memory>
#include <string>
#include <vector>

#include "calibrate/gpu/gpu_check.hpp"
#include "calibrate/gpu/gpu_context.hpp"
#include "calibrate/gpu/nvml_power.hpp"

namespace {

std::string version_string(int v, int major_div, int minor_div) {
  return std::to_string(v / major_div) + "." + std::to_string(v % major_div / minor_div) + "." +
         std::to_string(v % minor_div);
}

int usage(const char* msg) {
  std::cerr << "clustersim-calibrate: " << msg
            << "\nusage: clustersim-calibrate [--quick] [--out FILE] [--only gemm,memory,nccl,power] [--gpus N] "
               "[--device D] [--shape-seed S] [--budget-ms B] [--clocks burst|sustained] [--layouts tn,nn,nt] "
               "[--random-shapes N] [--random-align A] [--warmup-s MIN] [--trace FILE]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cs;
  using namespace cs::calib;
  bool quick = false;
  std::string out_path = "calibration-samples.csv";
  std::set<std::string> only{"gemm", "memory", "nccl", "power"};
  int gpus = -1, device = 0;
  std::uint64_t shape_seed = kDefaultShapeSeed;
  double budget_ms = -1;
  bool sustained = false;
  std::vector<std::string> layouts{"tn"};
  int random_shapes = -1;
  std::int64_t random_align = 0;
  double warmup_s = 20.0;
  std::string trace_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    try {
      if (a == "--quick") quick = true;
      else if (a == "--out") out_path = value();
      else if (a == "--gpus") gpus = std::stoi(value());
      else if (a == "--device") device = std::stoi(value());
      else if (a == "--shape-seed") shape_seed = std::stoull(value());
      else if (a == "--budget-ms") {
        budget_ms = std::stod(value());
        if (!(budget_ms > 0)) return usage("--budget-ms must be positive");
      }
      else if (a == "--clocks") {
        const std::string v = value();
        if (v != "burst" && v != "sustained") return usage("--clocks must be burst or sustained");
        sustained = v == "sustained";
      } else if (a == "--layouts") {
        layouts.clear();
        std::stringstream ss(value());
        for (std::string part; std::getline(ss, part, ',');) {
          if (part != "tn" && part != "nn" && part != "nt") return usage(("unknown layout " + part).c_str());
          layouts.push_back(part);
        }
      } else if (a == "--random-shapes") {
        random_shapes = std::stoi(value());
        if (random_shapes < 0) return usage("--random-shapes must be >= 0");
      } else if (a == "--random-align") {
        random_align = std::stoll(value());
        if (random_align < 1) return usage("--random-align must be >= 1");
      } else if (a == "--warmup-s") {
        warmup_s = std::stod(value());
        if (!(warmup_s >= 0)) return usage("--warmup-s must be >= 0");
      } else if (a == "--trace") {
        trace_path = value();
      }
      else if (a == "--only") {
        only.clear();
        std::stringstream ss(value());
        for (std::string part; std::getline(ss, part, ',');) {
          if (part != "gemm" && part != "memory" && part != "nccl" && part != "power") return usage(("unknown section " + part).c_str());
          only.insert(part);
        }
      } else if (a == "--help" || a == "-h") {
        usage("measures GEMMs, bandwidth-bound kernels, NCCL collectives and power");
        return 0;
      } else {
        return usage(("unknown argument " + a).c_str());
      }
    } catch (const std::exception& e) {
      return usage(e.what());
    }
  }

  try {
    int count = 0;
    CS_CUDA(cudaGetDeviceCount(&count));
    if (count == 0) throw GpuError("no CUDA device found");
    if (gpus < 0 || gpus > count) gpus = count;
    CS_CUDA(cudaSetDevice(device));
    cudaDeviceProp prop{};
    CS_CUDA(cudaGetDeviceProperties(&prop, device));
    char pci[32] = {};
    CS_CUDA(cudaDeviceGetPCIBusId(pci, sizeof pci, device));
    const Nvml nvml(pci);

    CalibrationRun run;
    run.gpu_name = prop.name;
    run.sm_count = prop.multiProcessorCount;
    run.memory = Bytes{static_cast<double>(prop.totalGlobalMem)};
    int drv = 0, rt = 0, nccl = 0, clock_khz = 0, mem_khz = 0;
    CS_CUDA(cudaDriverGetVersion(&drv));
    CS_CUDA(cudaRuntimeGetVersion(&rt));
    CS_NCCL(ncclGetVersion(&nccl));
    CS_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
    CS_CUDA(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device));
    run.sm_clock_mhz = nvml.available() ? static_cast<int>(nvml.max_clock_mhz(false)) : clock_khz / 1000;
    run.mem_clock_mhz = nvml.available() ? static_cast<int>(nvml.max_clock_mhz(true)) : mem_khz / 1000;
    run.driver = (nvml.available() ? nvml.driver_version() + " " : std::string{}) + "(CUDA driver API " +
                 version_string(drv, 1000, 10) + ")";
    run.cuda = version_string(rt, 1000, 10);
    run.cublas = version_string(static_cast<int>(cublasLtGetVersion()), 10000, 100);
    run.nccl = version_string(nccl, 10000, 100);
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    run.host = host;
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    run.date = date;
    run.tool = std::string("clustersim-calibrate 0.1") + (quick ? " --quick" : "");
    run.extra["gpus_visible"] = std::to_string(count);
    run.extra["gemm_shape_seed"] = std::to_string(shape_seed);
    const double budget_s = budget_ms > 0 ? budget_ms * 1e-3 : quick ? 0.012 : TimingPlan{}.budget_s;
    run.extra["timed_ms_per_measurement"] = std::to_string(budget_s * 1e3);
    run.extra["timing"] = sustained ? "sustained: back to back after a time-based warm-up, graphs, filler GEMMs between "
                                      "measurements"
                                    : "burst: repetitions queued behind a blocking kernel";
    run.extra["clocks"] = sustained ? "sustained" : "burst";
    if (random_shapes >= 0) run.extra["gemm_random_shapes"] = std::to_string(random_shapes);
    if (random_align > 0) run.extra["gemm_random_align"] = std::to_string(random_align);
    std::string layout_list;
    for (const auto& l : layouts) layout_list += (layout_list.empty() ? "" : ",") + l;
    run.extra["gemm_layouts_bf16"] = layout_list;
    if (nvml.available()) {
      run.extra["power_limit_w"] = std::to_string(nvml.enforced_power_limit_watts());
      run.extra["nvml_power"] = nvml.has_instant_power() ? "instant (field 186)" : "1 s average";
    }
    run.extra["l2_bytes"] = std::to_string(prop.l2CacheSize);
    run.extra["compute_capability"] = std::to_string(prop.major) + "." + std::to_string(prop.minor);
    if (!nvml.available()) run.extra["nvml"] = "unavailable: " + nvml.why_unavailable();

    std::ofstream out(out_path);
    if (!out) throw std::runtime_error("cannot write " + out_path);
    write_samples_header(out, run);
    out.flush();
    std::fprintf(stderr, "clustersim-calibrate: %s, %d SMs, %.0f GiB, driver %s, CUDA %s, cuBLASLt %s, NCCL %s%s\n",
                 run.gpu_name.c_str(), run.sm_count, run.memory / 1_GiB, run.driver.c_str(), run.cuda.c_str(),
                 run.cublas.c_str(), run.nccl.c_str(), quick ? " (quick)" : "");

    GpuContext ctx;
    ctx.device = device;
    CS_CUDA(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking));
    ctx.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    ctx.sm_count = prop.multiProcessorCount;
    ctx.quick = quick;
    ctx.shape_seed = shape_seed;
    ctx.plan.budget_s = budget_s;
    ctx.sustained = sustained;
    ctx.gemm_layouts = layouts;
    ctx.random_shapes = random_shapes;
    ctx.random_align = random_align;
    const NvmlSampler sampler(nvml, std::chrono::milliseconds(5));
    ctx.sampler = &sampler;
    std::unique_ptr<BusyGemm> filler;
    if (sustained) {
      // Short repetitions, a settle time of the kernel's own, ~5 ms of filler GEMMs after each measurement.
      ctx.plan.min_reps = 3;
      ctx.plan.max_reps = 10;
      ctx.plan.target_rep_s = 2e-3;
      ctx.plan.settle_s = 0.010;
      filler = std::make_unique<BusyGemm>(ctx.stream);
      ctx.filler = [&filler] { filler->enqueue(3); };
    }
    std::size_t written = 0;
    ctx.emit = [&](const CalibrationSample& s) {
      write_sample(out, s);
      out.flush();
      if (!out) throw std::runtime_error("write to " + out_path + " failed");
      ++written;
    };

    if (sustained) {
      const double took = warm_up(ctx, sampler, warmup_s, warmup_s + 40.0);
      std::fprintf(stderr, "clustersim-calibrate: warm-up took %.0f s\n", took);
      if (only.count("power") && sampler.active()) run_power_mix(ctx, sampler);
    } else if (only.count("power")) {
      if (nvml.available()) run_power_sweep(ctx, nvml);
      else std::fprintf(stderr, "power: skipped (%s)\n", nvml.why_unavailable().c_str());
    }
    if (only.count("gemm")) run_gemm_sweep(ctx);
    if (only.count("memory")) run_memory_sweep(ctx);
    if (only.count("nccl")) run_nccl_sweep(ctx, gpus);
    CS_CUDA(cudaStreamSynchronize(ctx.stream));
    filler.reset();
    if (!trace_path.empty()) {
      std::ofstream trace(trace_path);
      sampler.write_trace(trace, ctx.start, 0.1);
      if (!trace) throw std::runtime_error("write to " + trace_path + " failed");
    }
    CS_CUDA(cudaStreamDestroy(ctx.stream));
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - ctx.start).count();
    std::fprintf(stderr, "clustersim-calibrate: %zu samples written to %s in %.0f s\n", written, out_path.c_str(), el);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "clustersim-calibrate: " << e.what() << "\n";
    return 1;
  }
}
