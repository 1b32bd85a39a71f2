// CUDA kernels the calibrator times: random fills (never zeros: zeros run faster than real data) and the
// bandwidth-bound kernels of a transformer step. Each launcher enqueues one kernel on `stream` and returns
// the cudaError_t of the launch; it does not synchronise. All sizes are element counts.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

namespace cs::kernels {

enum class FillType { f32, bf16, f16, e4m3 };

/// Fills `n` elements with hash-derived values in +-[0.5, 1) * scale (never zero).
cudaError_t fill_random(void* data, std::int64_t n, FillType type, std::uint64_t seed, float scale,
                        cudaStream_t stream);

/// dst = src, float4-vectorised; n floats (a multiple of 4). Moves 8n bytes.
cudaError_t copy(float* dst, const float* src, std::int64_t n, cudaStream_t stream);
/// c = a + b; n floats (a multiple of 4). Moves 12n bytes.
cudaError_t add(float* c, const float* a, const float* b, std::int64_t n, cudaStream_t stream);
/// LayerNorm over rows of `cols` bf16 values (fp32 statistics, with weight and bias). Moves ~4*rows*cols bytes.
cudaError_t layernorm(std::uint16_t* y, const std::uint16_t* x, const float* w, const float* b, int rows, int cols,
                      cudaStream_t stream);
/// RMSNorm over rows of `cols` bf16 values. Moves ~4*rows*cols bytes.
cudaError_t rmsnorm(std::uint16_t* y, const std::uint16_t* x, const float* w, int rows, int cols, cudaStream_t stream);
/// Row softmax over `cols` bf16 values. Moves 4*rows*cols bytes.
cudaError_t softmax(std::uint16_t* y, const std::uint16_t* x, int rows, int cols, cudaStream_t stream);
/// One fused Adam step over n fp32 parameters (p, m, v updated in place, g read). Moves 28n bytes.
cudaError_t adam(float* p, float* m, float* v, const float* g, std::int64_t n, float lr, float beta1, float beta2,
                 float eps, int step, cudaStream_t stream);

/// Holds `stream` until the host writes a non-zero value to `*release` (both pointers are device views of
/// mapped, pinned host memory), or `timeout_s` has passed, in which case it sets `*timed_out` to 1.
cudaError_t block_stream(const volatile int* release, volatile int* timed_out, double timeout_s, cudaStream_t stream);

}  // namespace cs::kernels
