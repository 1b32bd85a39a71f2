#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "kernels/kernels.cuh"

namespace cs::kernels {
namespace {

// splitmix64: a counter-based hash, so every element is independent of launch geometry.
__device__ __forceinline__ std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <FillType T>
__global__ void fill_kernel(void* data, std::int64_t n, std::uint64_t seed, float scale) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t h = mix(seed ^ mix(static_cast<std::uint64_t>(i)));
    const float mag = 0.5f + 0.5f * static_cast<float>(h >> 40) * (1.0f / 16777216.0f);  // [0.5, 1)
    const float v = ((h & 1u) ? -mag : mag) * scale;
    if constexpr (T == FillType::f32) static_cast<float*>(data)[i] = v;
    if constexpr (T == FillType::bf16) static_cast<__nv_bfloat16*>(data)[i] = __float2bfloat16(v);
    if constexpr (T == FillType::f16) static_cast<__half*>(data)[i] = __float2half(v);
    if constexpr (T == FillType::e4m3) static_cast<__nv_fp8_e4m3*>(data)[i] = __nv_fp8_e4m3(v);
  }
}

}  // namespace

cudaError_t fill_random(void* data, std::int64_t n, FillType type, std::uint64_t seed, float scale,
                        cudaStream_t stream) {
  const int threads = 256, blocks = 132 * 16;
  switch (type) {
    case FillType::f32: fill_kernel<FillType::f32><<<blocks, threads, 0, stream>>>(data, n, seed, scale); break;
    case FillType::bf16: fill_kernel<FillType::bf16><<<blocks, threads, 0, stream>>>(data, n, seed, scale); break;
    case FillType::f16: fill_kernel<FillType::f16><<<blocks, threads, 0, stream>>>(data, n, seed, scale); break;
    case FillType::e4m3: fill_kernel<FillType::e4m3><<<blocks, threads, 0, stream>>>(data, n, seed, scale); break;
  }
  return cudaGetLastError();
}

}  // namespace cs::kernels
