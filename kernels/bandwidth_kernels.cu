// Bandwidth-bound kernels written the way a framework writes them: vectorised grid-stride loops for
// elementwise work, one block per row (block-wide reductions in fp32) for norms and softmax.
#include <cuda_bf16.h>

#include "kernels/kernels.cuh"

namespace cs::kernels {
namespace {

constexpr int kThreads = 256;

int grid_for(std::int64_t work) {
  const std::int64_t blocks = (work + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 132 * 32 ? blocks : 132 * 32);
}

__global__ void copy_kernel(float4* dst, const float4* src, std::int64_t n4) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n4;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    dst[i] = src[i];
  }
}

__global__ void add_kernel(float4* c, const float4* a, const float4* b, std::int64_t n4) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n4;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

// Sum over the block; every thread gets the result. `scratch` holds one float per warp.
__device__ float block_sum(float v, float* scratch) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float s = 0.f;
  for (int w = 0; w < static_cast<int>(blockDim.x) / 32; ++w) s += scratch[w];
  return s;
}

__device__ float block_max(float v, float* scratch) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float s = scratch[0];
  for (int w = 1; w < static_cast<int>(blockDim.x) / 32; ++w) s = fmaxf(s, scratch[w]);
  return s;
}

template <bool kRms>
__global__ void norm_kernel(__nv_bfloat16* y, const __nv_bfloat16* x, const float* w, const float* b, int cols) {
  __shared__ float scratch[32];
  const __nv_bfloat16* row = x + static_cast<std::int64_t>(blockIdx.x) * cols;
  __nv_bfloat16* out = y + static_cast<std::int64_t>(blockIdx.x) * cols;
  float s = 0.f, s2 = 0.f;
  for (int c = static_cast<int>(threadIdx.x); c < cols; c += blockDim.x) {
    const float v = __bfloat162float(row[c]);
    s += v;
    s2 += v * v;
  }
  const float mean = kRms ? 0.f : block_sum(s, scratch) / static_cast<float>(cols);
  const float var = block_sum(s2, scratch) / static_cast<float>(cols) - mean * mean;
  const float inv = rsqrtf(var + 1e-5f);
  for (int c = static_cast<int>(threadIdx.x); c < cols; c += blockDim.x) {
    const float v = (__bfloat162float(row[c]) - mean) * inv * w[c] + (kRms ? 0.f : b[c]);
    out[c] = __float2bfloat16(v);
  }
}

// Rows of exactly kVec*8*blockDim bf16 values (4096 with 256 threads): each thread keeps its 16 values in
// registers, so the row is read from memory once and written once, in 16-byte loads and stores.
constexpr int kVec = 2;

__device__ void load_row(const __nv_bfloat16* row, float (&v)[kVec * 8]) {
  for (int j = 0; j < kVec; ++j) {
    const uint4 raw = reinterpret_cast<const uint4*>(row)[threadIdx.x + j * blockDim.x];
    const auto* h = reinterpret_cast<const __nv_bfloat162*>(&raw);
    for (int e = 0; e < 4; ++e) {
      const float2 f = __bfloat1622float2(h[e]);
      v[j * 8 + 2 * e] = f.x;
      v[j * 8 + 2 * e + 1] = f.y;
    }
  }
}

__device__ void store_row(__nv_bfloat16* row, const float (&v)[kVec * 8]) {
  for (int j = 0; j < kVec; ++j) {
    uint4 raw;
    auto* h = reinterpret_cast<__nv_bfloat162*>(&raw);
    for (int e = 0; e < 4; ++e) h[e] = __floats2bfloat162_rn(v[j * 8 + 2 * e], v[j * 8 + 2 * e + 1]);
    reinterpret_cast<uint4*>(row)[threadIdx.x + j * blockDim.x] = raw;
  }
}

template <bool kRms>
__global__ void norm_vec_kernel(__nv_bfloat16* y, const __nv_bfloat16* x, const float* w, const float* b, int cols) {
  __shared__ float scratch[32];
  float v[kVec * 8];
  load_row(x + static_cast<std::int64_t>(blockIdx.x) * cols, v);
  float s = 0.f, s2 = 0.f;
  for (float f : v) {
    s += f;
    s2 += f * f;
  }
  const float mean = kRms ? 0.f : block_sum(s, scratch) / static_cast<float>(cols);
  const float inv = rsqrtf(block_sum(s2, scratch) / static_cast<float>(cols) - mean * mean + 1e-5f);
  for (int j = 0; j < kVec; ++j) {
    for (int e = 0; e < 8; ++e) {
      const int c = (static_cast<int>(threadIdx.x) + j * static_cast<int>(blockDim.x)) * 8 + e;
      v[j * 8 + e] = (v[j * 8 + e] - mean) * inv * w[c] + (kRms ? 0.f : b[c]);
    }
  }
  store_row(y + static_cast<std::int64_t>(blockIdx.x) * cols, v);
}

__global__ void softmax_vec_kernel(__nv_bfloat16* y, const __nv_bfloat16* x, int cols) {
  __shared__ float scratch[32];
  float v[kVec * 8];
  load_row(x + static_cast<std::int64_t>(blockIdx.x) * cols, v);
  float m = -INFINITY;
  for (float f : v) m = fmaxf(m, f);
  m = block_max(m, scratch);
  float s = 0.f;
  for (float& f : v) {
    f = __expf(f - m);
    s += f;
  }
  const float inv = 1.f / block_sum(s, scratch);
  for (float& f : v) f *= inv;
  store_row(y + static_cast<std::int64_t>(blockIdx.x) * cols, v);
}

__global__ void softmax_kernel(__nv_bfloat16* y, const __nv_bfloat16* x, int cols) {
  __shared__ float scratch[32];
  const __nv_bfloat16* row = x + static_cast<std::int64_t>(blockIdx.x) * cols;
  __nv_bfloat16* out = y + static_cast<std::int64_t>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int c = static_cast<int>(threadIdx.x); c < cols; c += blockDim.x) m = fmaxf(m, __bfloat162float(row[c]));
  m = block_max(m, scratch);
  float s = 0.f;
  for (int c = static_cast<int>(threadIdx.x); c < cols; c += blockDim.x) s += __expf(__bfloat162float(row[c]) - m);
  const float inv = 1.f / block_sum(s, scratch);
  for (int c = static_cast<int>(threadIdx.x); c < cols; c += blockDim.x) {
    out[c] = __float2bfloat16(__expf(__bfloat162float(row[c]) - m) * inv);
  }
}

__global__ void adam_kernel(float* p, float* m, float* v, const float* g, std::int64_t n, float lr, float beta1,
                            float beta2, float eps, float bc1, float bc2) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const float gi = g[i];
    const float mi = beta1 * m[i] + (1.f - beta1) * gi;
    const float vi = beta2 * v[i] + (1.f - beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] -= lr * (mi / bc1) / (sqrtf(vi / bc2) + eps);
  }
}

}  // namespace

cudaError_t copy(float* dst, const float* src, std::int64_t n, cudaStream_t stream) {
  copy_kernel<<<grid_for(n / 4), kThreads, 0, stream>>>(reinterpret_cast<float4*>(dst),
                                                        reinterpret_cast<const float4*>(src), n / 4);
  return cudaGetLastError();
}

cudaError_t add(float* c, const float* a, const float* b, std::int64_t n, cudaStream_t stream) {
  add_kernel<<<grid_for(n / 4), kThreads, 0, stream>>>(reinterpret_cast<float4*>(c), reinterpret_cast<const float4*>(a),
                                                       reinterpret_cast<const float4*>(b), n / 4);
  return cudaGetLastError();
}

cudaError_t layernorm(std::uint16_t* y, const std::uint16_t* x, const float* w, const float* b, int rows, int cols,
                      cudaStream_t stream) {
  if (cols == kVec * 8 * kThreads) {
    norm_vec_kernel<false><<<rows, kThreads, 0, stream>>>(reinterpret_cast<__nv_bfloat16*>(y),
                                                          reinterpret_cast<const __nv_bfloat16*>(x), w, b, cols);
    return cudaGetLastError();
  }
  norm_kernel<false><<<rows, kThreads, 0, stream>>>(reinterpret_cast<__nv_bfloat16*>(y),
                                                    reinterpret_cast<const __nv_bfloat16*>(x), w, b, cols);
  return cudaGetLastError();
}

cudaError_t rmsnorm(std::uint16_t* y, const std::uint16_t* x, const float* w, int rows, int cols, cudaStream_t stream) {
  if (cols == kVec * 8 * kThreads) {
    norm_vec_kernel<true><<<rows, kThreads, 0, stream>>>(reinterpret_cast<__nv_bfloat16*>(y),
                                                         reinterpret_cast<const __nv_bfloat16*>(x), w, nullptr, cols);
    return cudaGetLastError();
  }
  norm_kernel<true><<<rows, kThreads, 0, stream>>>(reinterpret_cast<__nv_bfloat16*>(y),
                                                   reinterpret_cast<const __nv_bfloat16*>(x), w, nullptr, cols);
  return cudaGetLastError();
}

cudaError_t softmax(std::uint16_t* y, const std::uint16_t* x, int rows, int cols, cudaStream_t stream) {
  if (cols == kVec * 8 * kThreads) {
    softmax_vec_kernel<<<rows, kThreads, 0, stream>>>(reinterpret_cast<__nv_bfloat16*>(y),
                                                      reinterpret_cast<const __nv_bfloat16*>(x), cols);
    return cudaGetLastError();
  }
  softmax_kernel<<<rows, kThreads, 0, stream>>>(reinterpret_cast<__nv_bfloat16*>(y),
                                                reinterpret_cast<const __nv_bfloat16*>(x), cols);
  return cudaGetLastError();
}

cudaError_t adam(float* p, float* m, float* v, const float* g, std::int64_t n, float lr, float beta1, float beta2,
                 float eps, int step, cudaStream_t stream) {
  const float bc1 = 1.f - powf(beta1, static_cast<float>(step)), bc2 = 1.f - powf(beta2, static_cast<float>(step));
  adam_kernel<<<grid_for(n), kThreads, 0, stream>>>(p, m, v, g, n, lr, beta1, beta2, eps, bc1, bc2);
  return cudaGetLastError();
}

}  // namespace cs::kernels
