// Build shim for this project's experiment only: Transformer Engine's NVFP4 stochastic rounding uses cuRANDDx
// (nvidia-mathdx, not installable here). The experiment never runs NVFP4; this gives the same interface with a
// simple counter hash, NOT cuRANDDx's Philox.
#pragma once
#include <cstdint>
#include <vector_types.h>
namespace curanddx {
struct philox4_32 {};
template <class T> struct Generator {};
template <int N> struct PhiloxRounds {};
template <int N> struct SM {};
struct Thread {};
struct Rng {
  unsigned long long s, q, o;
  __device__ Rng(unsigned long long seed, unsigned long long seq, unsigned long long off) : s(seed), q(seq), o(off) {}
  __device__ uint32_t next() {
    unsigned long long x = s ^ (q * 0x9E3779B97F4A7C15ull) ^ (o++ * 0xBF58476D1CE4E5B9ull);
    x ^= x >> 31; x *= 0x94D049BB133111EBull; x ^= x >> 29;
    return static_cast<uint32_t>(x);
  }
};
template <class A, class B> __host__ __device__ Rng operator+(A, B);
struct uniform_bits {
  __device__ uint4 generate4(Rng& r) { return uint4{r.next(), r.next(), r.next(), r.next()}; }
};
}  // namespace curanddx
