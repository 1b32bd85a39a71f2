// NCCL collectives over the GPUs of the node, one thread per GPU (one communicator each, from
// ncclCommInitAll). Buffer sizes 1 KiB to 4 GiB per rank (256 MiB with --quick). A repetition is timed on
// every rank with CUDA events between two barriers; the sample is the median over repetitions of the
// slowest rank. `bytes` is the per-rank buffer: the all-reduce size, the gathered (all-gather) or
// scattered (reduce-scatter) total, all-to-all's whole send buffer, send/recv's message.
// NCCL_NVLS_ENABLE=0 is forced: NVLink multicast is not to be used on the shared machines.
#include <algorithm>
#include <barrier>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "calibrate/gpu/gpu_check.hpp"
#include "calibrate/gpu/gpu_context.hpp"
#include "kernels/kernels.cuh"

namespace cs::calib {
namespace {

const char* const kOps[] = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv"};

void enqueue(const std::string& op, ncclComm_t comm, int rank, int ranks, float* send, float* recv,
             std::size_t bytes, cudaStream_t stream) {
  const std::size_t count = bytes / sizeof(float);
  const std::size_t per_rank = count / static_cast<std::size_t>(ranks);
  if (op == "all_reduce") {
    CS_NCCL(ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream));
  } else if (op == "all_gather") {
    CS_NCCL(ncclAllGather(send, recv, per_rank, ncclFloat, comm, stream));
  } else if (op == "reduce_scatter") {
    CS_NCCL(ncclReduceScatter(send, recv, per_rank, ncclFloat, ncclSum, comm, stream));
  } else if (op == "all_to_all") {
    CS_NCCL(ncclGroupStart());
    for (int p = 0; p < ranks; ++p) {
      CS_NCCL(ncclSend(send + per_rank * static_cast<std::size_t>(p), per_rank, ncclFloat, p, comm, stream));
      CS_NCCL(ncclRecv(recv + per_rank * static_cast<std::size_t>(p), per_rank, ncclFloat, p, comm, stream));
    }
    CS_NCCL(ncclGroupEnd());
  } else {  // send_recv: a ring shift, each rank sends to the next and receives from the previous
    CS_NCCL(ncclGroupStart());
    CS_NCCL(ncclSend(send, count, ncclFloat, (rank + 1) % ranks, comm, stream));
    CS_NCCL(ncclRecv(recv, count, ncclFloat, (rank + ranks - 1) % ranks, comm, stream));
    CS_NCCL(ncclGroupEnd());
  }
}

}  // namespace

void run_nccl_sweep(const GpuContext& ctx, int gpus) {
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  const char* algo_env = std::getenv("NCCL_ALGO");
  const std::string algo = algo_env != nullptr && *algo_env != '\0' ? algo_env : "auto";
  const std::size_t max_bytes = ctx.quick ? (256u << 20) : (std::size_t{4} << 30);
  std::vector<std::size_t> sizes;
  for (std::size_t b = 1024; b <= max_bytes; b *= ctx.quick ? 16 : 4) sizes.push_back(b);

  std::vector<ncclComm_t> comms(static_cast<std::size_t>(gpus));
  std::vector<int> devs(static_cast<std::size_t>(gpus));
  for (int i = 0; i < gpus; ++i) devs[static_cast<std::size_t>(i)] = i;
  CS_NCCL(ncclCommInitAll(comms.data(), gpus, devs.data()));

  const int warmup = 2;
  // times[rank][rep] for the current (op, size)
  std::vector<std::vector<double>> times(static_cast<std::size_t>(gpus));
  std::barrier sync(gpus);
  std::vector<std::string> errors(static_cast<std::size_t>(gpus));
  std::size_t done = 0;
  const std::size_t total = std::size(kOps) * sizes.size();

  const auto worker = [&](int rank, const std::string& op, std::size_t bytes, int inner, int reps) {
    try {
      CS_CUDA(cudaSetDevice(rank));
      cudaStream_t stream{};
      CS_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      float *send = nullptr, *recv = nullptr;
      CS_CUDA(cudaMalloc(&send, bytes));
      CS_CUDA(cudaMalloc(&recv, bytes));
      CS_CUDA(kernels::fill_random(send, static_cast<std::int64_t>(bytes / 4), kernels::FillType::f32,
                                   1000u + static_cast<unsigned>(rank), 1.0f, stream));
      cudaEvent_t a{}, b{};
      CS_CUDA(cudaEventCreate(&a));
      CS_CUDA(cudaEventCreate(&b));
      ncclComm_t comm = comms[static_cast<std::size_t>(rank)];
      for (int w = 0; w < warmup; ++w) enqueue(op, comm, rank, gpus, send, recv, bytes, stream);
      CS_CUDA(cudaStreamSynchronize(stream));
      auto& mine = times[static_cast<std::size_t>(rank)];
      mine.clear();
      for (int r = 0; r < reps; ++r) {
        sync.arrive_and_wait();
        CS_CUDA(cudaEventRecord(a, stream));
        for (int j = 0; j < inner; ++j) enqueue(op, comm, rank, gpus, send, recv, bytes, stream);
        CS_CUDA(cudaEventRecord(b, stream));
        CS_CUDA(cudaEventSynchronize(b));
        float ms = 0;
        CS_CUDA(cudaEventElapsedTime(&ms, a, b));
        mine.push_back(static_cast<double>(ms) * 1e-3 / inner);
      }
      CS_CUDA(cudaEventDestroy(a));
      CS_CUDA(cudaEventDestroy(b));
      CS_CUDA(cudaFree(send));
      CS_CUDA(cudaFree(recv));
      CS_CUDA(cudaStreamDestroy(stream));
    } catch (const std::exception& e) {
      errors[static_cast<std::size_t>(rank)] = e.what();
      sync.arrive_and_drop();
    }
  };

  for (const char* op : kOps) {
    for (const std::size_t bytes : sizes) {
      ++done;
      const int inner = bytes <= (1u << 20) ? 20 : bytes <= (64u << 20) ? 5 : 1;
      const int reps = bytes <= (256u << 20) ? 9 : 5;
      std::vector<std::thread> threads;
      for (int r = 0; r < gpus; ++r) threads.emplace_back(worker, r, std::string(op), bytes, inner, reps);
      for (auto& t : threads) t.join();
      for (const auto& e : errors) {
        if (!e.empty()) throw GpuError("NCCL sweep (" + std::string(op) + ", " + std::to_string(bytes) + " B): " + e);
      }
      std::vector<double> slowest(static_cast<std::size_t>(reps), 0.0);
      for (const auto& per_rank : times) {
        for (std::size_t r = 0; r < per_rank.size(); ++r) slowest[r] = std::max(slowest[r], per_rank[r]);
      }
      const Timing t = summarize(slowest);
      CalibrationSample s;
      s.kind = "collective";
      s.op = op;
      s.dtype = "fp32";
      s.bytes = Bytes{static_cast<double>(bytes)};
      s.ranks = gpus;
      s.algo = algo;
      record_timing(t, s);
      ctx.emit(s);
      char line[128];
      std::snprintf(line, sizeof line, "%s %d GPU(s) %.0f KiB  %.2f us", op, gpus, static_cast<double>(bytes) / 1024.0,
                    t.median_s * 1e6);
      if (done % 4 == 0 || done == total) ctx.progress("nccl", done, total, line);
    }
  }
  for (auto c : comms) CS_NCCL(ncclCommDestroy(c));
  CS_CUDA(cudaSetDevice(ctx.device));
}

}  // namespace cs::calib
