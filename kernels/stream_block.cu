// A one-thread kernel that holds its stream until the host releases it (nvbench's "blocking kernel" idea):
// while it spins, the host enqueues every launch of a repetition, so the timed launches then run back to
// back at GPU speed however long the host takes to issue each one. A timeout (GPU global timer) ends the
// spin if the host never releases it, for instance when the launch queue filled up before the release.
#include "kernels/kernels.cuh"

namespace cs::kernels {
namespace {

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_until_released(const volatile int* release, volatile int* timed_out, unsigned long long timeout_ns) {
  const unsigned long long t0 = global_ns();
  while (*release == 0) {
    if (global_ns() - t0 > timeout_ns) {
      *timed_out = 1;
      return;
    }
  }
}

}  // namespace

cudaError_t block_stream(const volatile int* release, volatile int* timed_out, double timeout_s, cudaStream_t stream) {
  spin_until_released<<<1, 1, 0, stream>>>(release, timed_out, static_cast<unsigned long long>(timeout_s * 1e9));
  return cudaGetLastError();
}

}  // namespace cs::kernels
