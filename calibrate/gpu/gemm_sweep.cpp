// GEMMs through cuBLASLt in fp32, tf32, bf16, fp16 and fp8 (e4m3 inputs, bf16 output), TN layout (the one
// fp8 requires on Hopper) and, for bf16 when asked, NN and NT (a linear layer's input-gradient and
// weight-gradient GEMMs: PyTorch's forward is TN, its backward is not), the algorithm cuBLASLt's heuristic ranks first, a 32 MiB workspace as PyTorch
// gives it. Shapes: transformer-layer GEMMs over hidden sizes, token counts and tensor-parallel splits
// (forward, input-gradient and weight-gradient forms) plus log-uniform random shapes with odd sizes.
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "calibrate/gpu/gpu_check.hpp"
#include "calibrate/gpu/gpu_context.hpp"
#include "kernels/kernels.cuh"

namespace cs::calib {
namespace {

struct Shape {
  std::int64_t m, n, k;
  auto operator<=>(const Shape&) const = default;
};

struct DtypeConfig {
  const char* name;
  cudaDataType ab, cd;
  cublasComputeType_t compute;
  kernels::FillType fill;
  double ab_bytes, cd_bytes;
  double max_flops;  ///< skip shapes above this: they only cost time
  std::int64_t align; ///< dimensions rounded up to this (fp8 needs multiples of 16)
};

const DtypeConfig kDtypes[] = {
    {"fp32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, kernels::FillType::f32, 4, 4, 2.5e12, 1},
    {"tf32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, kernels::FillType::f32, 4, 4, 1.2e13, 1},
    {"bf16", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, kernels::FillType::bf16, 2, 2, 3e13, 1},
    {"fp16", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, kernels::FillType::f16, 2, 2, 3e13, 1},
    {"fp8", CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, kernels::FillType::e4m3, 1, 2, 5e13, 16},
};

std::int64_t round_up(std::int64_t v, std::int64_t a) { return (v + a - 1) / a * a; }

std::vector<Shape> shape_grid(bool quick, std::uint64_t seed, int random_shapes, std::int64_t random_align) {
  std::set<Shape> s;
  const std::vector<std::int64_t> hidden = quick ? std::vector<std::int64_t>{2048, 8192}
                                                 : std::vector<std::int64_t>{1024, 2048, 3072, 4096, 5120, 8192};
  const std::vector<std::int64_t> tokens = quick ? std::vector<std::int64_t>{4096}
                                                 : std::vector<std::int64_t>{1024, 4096, 8192, 16384};
  const std::vector<std::int64_t> tps = quick ? std::vector<std::int64_t>{1, 8} : std::vector<std::int64_t>{1, 2, 4, 8};
  for (auto h : hidden) {
    for (auto t : tokens) {
      for (auto tp : tps) {
        // (out features, in features) of QKV, attention projection, MLP up and MLP down.
        const std::int64_t layers[4][2] = {{3 * h / tp, h}, {h, h / tp}, {4 * h / tp, h}, {h, 4 * h / tp}};
        for (const auto& l : layers) {
          s.insert({t, l[0], l[1]});                      // forward: tokens x out, reduce over in
          if (tp == 1 || tp == 8) {
            s.insert({t, l[1], l[0]});                    // input gradient
            if (!quick) s.insert({l[0], l[1], t});        // weight gradient: reduce over tokens
          }
        }
      }
      if (tokens.size() == 1 || t == 4096 || t == 8192) s.insert({t, 50304, h});  // LM head
    }
  }
  // Log-uniform random shapes, odd sizes included, from a seed (the same seed, the same shapes). The first
  // H200 run drew 240 with seed 20261202; the profile's run 480 with kDefaultShapeSeed.
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> lg(std::log(48.0), std::log(20000.0));
  const int random_count = random_shapes >= 0 ? random_shapes : quick ? 24 : 480;
  for (int i = 0; i < random_count; ++i) {
    // Every other shape rounded to multiples of 64, as framework shapes mostly are; the rest left odd.
    const std::int64_t a = random_align > 0 ? random_align : i % 2 == 0 ? 64 : 1;
    const auto d = [&] { return round_up(static_cast<std::int64_t>(std::exp(lg(rng))), a); };
    s.insert({d(), d(), d()});
  }
  return {s.begin(), s.end()};
}

class Lt {
 public:
  Lt() { CS_CUBLAS(cublasLtCreate(&h_)); }
  ~Lt() { cublasLtDestroy(h_); }
  Lt(const Lt&) = delete;
  Lt& operator=(const Lt&) = delete;
  [[nodiscard]] cublasLtHandle_t get() const { return h_; }

 private:
  cublasLtHandle_t h_{};
};

// Descriptors of one GEMM, destroyed on scope exit.
struct Plan {
  cublasLtMatmulDesc_t op{};
  cublasLtMatrixLayout_t a{}, b{}, c{};
  cublasLtMatmulPreference_t pref{};
  cublasLtMatmulHeuristicResult_t algo{};
  bool ok = false;
  ~Plan() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

// D[m,n] (column-major) = op(A) op(B), cuBLAS's names: "tn" = A^T B with A stored k x m and B k x n (a
// PyTorch linear's forward), "nn" = A B with A stored m x k (its input gradient), "nt" = A B^T with B stored
// n x k (its weight gradient).
void make_plan(Plan& p, const Lt& lt, const DtypeConfig& d, const Shape& s, std::size_t workspace,
               const std::string& layout = "tn") {
  CS_CUBLAS(cublasLtMatmulDescCreate(&p.op, d.compute, CUDA_R_32F));
  const bool a_t = layout[0] == 't', b_t = layout[1] == 't';
  const cublasOperation_t ta = a_t ? CUBLAS_OP_T : CUBLAS_OP_N, tb = b_t ? CUBLAS_OP_T : CUBLAS_OP_N;
  CS_CUBLAS(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  CS_CUBLAS(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  if (a_t) CS_CUBLAS(cublasLtMatrixLayoutCreate(&p.a, d.ab, u(s.k), u(s.m), s.k));
  else CS_CUBLAS(cublasLtMatrixLayoutCreate(&p.a, d.ab, u(s.m), u(s.k), s.m));
  if (b_t) CS_CUBLAS(cublasLtMatrixLayoutCreate(&p.b, d.ab, u(s.n), u(s.k), s.n));
  else CS_CUBLAS(cublasLtMatrixLayoutCreate(&p.b, d.ab, u(s.k), u(s.n), s.k));
  CS_CUBLAS(cublasLtMatrixLayoutCreate(&p.c, d.cd, static_cast<std::uint64_t>(s.m), static_cast<std::uint64_t>(s.n), s.m));
  CS_CUBLAS(cublasLtMatmulPreferenceCreate(&p.pref));
  CS_CUBLAS(cublasLtMatmulPreferenceSetAttribute(p.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                 sizeof workspace));
  int found = 0;
  const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt.get(), p.op, p.a, p.b, p.c, p.c, p.pref, 1, &p.algo, &found);
  if (st == CUBLAS_STATUS_NOT_SUPPORTED) return;
  CS_CUBLAS(st);
  p.ok = found > 0;
}

}  // namespace

void run_gemm_sweep(const GpuContext& ctx) {
  const std::vector<Shape> base = shape_grid(ctx.quick, ctx.shape_seed, ctx.random_shapes, ctx.random_align);
  const Lt lt;
  const std::size_t workspace_bytes = 32u << 20;
  const double arena_bytes = 6.0 * (1u << 30);  // inputs and outputs of the rotating sets
  void* workspace = nullptr;
  void* arena = nullptr;
  CS_CUDA(cudaMalloc(&workspace, workspace_bytes));
  CS_CUDA(cudaMalloc(&arena, static_cast<std::size_t>(arena_bytes)));
  auto* bytes = static_cast<char*>(arena);

  std::size_t done = 0;
  const auto layouts_of = [&](const DtypeConfig& d) {
    return d.ab == CUDA_R_16BF ? ctx.gemm_layouts : std::vector<std::string>{"tn"};
  };
  std::size_t total = 0;
  for (const DtypeConfig& d : kDtypes) total += base.size() * layouts_of(d).size();
  for (const DtypeConfig& d : kDtypes) {
    // Random non-zero data over the whole arena in this format (outputs are overwritten anyway).
    const auto elems = static_cast<std::int64_t>(arena_bytes / d.ab_bytes);
    CS_CUDA(kernels::fill_random(arena, elems, d.fill, 0x5eed0000u + done, 1.0f, ctx.stream));
    if (!ctx.sustained) CS_CUDA(cudaStreamSynchronize(ctx.stream));
    for (const std::string& layout : layouts_of(d)) {
    for (const Shape& raw : base) {
      ++done;
      const Shape s{round_up(raw.m, d.align), round_up(raw.n, d.align), round_up(raw.k, d.align)};
      const double flops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
      const double in_bytes = static_cast<double>(s.m * s.k + s.k * s.n) * d.ab_bytes;
      const double set_bytes = in_bytes + static_cast<double>(s.m * s.n) * d.cd_bytes + 3 * 256.0;
      if (flops > d.max_flops || set_bytes > arena_bytes) continue;
      Plan p;
      make_plan(p, lt, d, s, workspace_bytes, layout);
      if (!p.ok) {
        ctx.progress("gemm", done, total, std::string(d.name) + " " + layout + " no cuBLASLt algorithm, skipped");
        continue;
      }
      const int sets = ctx.rotations(set_bytes, arena_bytes);
      const auto align = [](double v) { return static_cast<std::size_t>((static_cast<std::uint64_t>(v) + 255) / 256 * 256); };
      const std::size_t a_sz = align(static_cast<double>(s.m * s.k) * d.ab_bytes);
      const std::size_t b_sz = align(static_cast<double>(s.k * s.n) * d.ab_bytes);
      const std::size_t c_sz = align(static_cast<double>(s.m * s.n) * d.cd_bytes);
      const std::size_t stride = a_sz + b_sz + c_sz;
      const float alpha = 1.0f, beta = 0.0f;
      const auto launch = [&](int i) {
        char* base_ptr = bytes + static_cast<std::size_t>(i % sets) * stride;
        CS_CUBLAS(cublasLtMatmul(lt.get(), p.op, &alpha, base_ptr, p.a, base_ptr + a_sz, p.b, &beta,
                                 base_ptr + a_sz + b_sz, p.c, base_ptr + a_sz + b_sz, p.c, &p.algo.algo, workspace,
                                 workspace_bytes, ctx.stream));
      };
      const Timing t = ctx.time(launch);
      CalibrationSample out;
      out.kind = "gemm";
      out.op = "gemm";
      out.dtype = d.name;
      out.m = s.m;
      out.n = s.n;
      out.k = s.k;
      out.layout = layout;
      out.bytes = Bytes{in_bytes + static_cast<double>(s.m * s.n) * d.cd_bytes};
      record_timing(t, out);
      ctx.emit(out);
      char line[200];
      std::snprintf(line, sizeof line, "%s %s m=%lld n=%lld k=%lld  %.3f ms  %.1f TFLOP/s  %.0f MHz %.0f W %.0f C",
                    d.name, layout.c_str(), static_cast<long long>(s.m), static_cast<long long>(s.n),
                    static_cast<long long>(s.k), t.median_s * 1e3, flops / t.median_s * 1e-12, t.sm_mhz, t.watts,
                    t.temp_c);
      if (done % 20 == 0 || t.median_s > 8e-3) ctx.progress("gemm", done, total, line);
    }
    }
  }
  CS_CUDA(cudaFree(arena));
  CS_CUDA(cudaFree(workspace));
}

}  // namespace cs::calib

namespace cs::calib {

struct BusyGemm::Impl {
  Lt lt;
  Plan plan;
  void* workspace = nullptr;
  void* arena = nullptr;
  std::size_t matrix = 0;
};

BusyGemm::BusyGemm(cudaStream_t stream) : stream_(stream), impl_(std::make_unique<Impl>()) {
  const DtypeConfig& d = kDtypes[2];  // bf16
  const Shape s{kSize, kSize, kSize};
  Impl& g = *impl_;
  g.matrix = static_cast<std::size_t>(s.m * s.k) * 2;
  CS_CUDA(cudaMalloc(&g.workspace, kWorkspace));
  CS_CUDA(cudaMalloc(&g.arena, 3 * g.matrix));
  CS_CUDA(kernels::fill_random(g.arena, static_cast<std::int64_t>(3 * g.matrix / 2), d.fill, 99, 1.0f, stream));
  make_plan(g.plan, g.lt, d, s, kWorkspace);
  if (!g.plan.ok) throw GpuError("cuBLASLt has no bf16 algorithm for the 8192^3 load");
}

BusyGemm::~BusyGemm() {
  cudaFree(impl_->arena);
  cudaFree(impl_->workspace);
}

void BusyGemm::enqueue(int launches) const {
  const Impl& g = *impl_;
  auto* base = static_cast<char*>(g.arena);
  const float alpha = 1.0f, beta = 0.0f;
  for (int i = 0; i < launches; ++i) {
    CS_CUBLAS(cublasLtMatmul(g.lt.get(), g.plan.op, &alpha, base, g.plan.a, base + g.matrix, g.plan.b, &beta,
                             base + 2 * g.matrix, g.plan.c, base + 2 * g.matrix, g.plan.c, &g.plan.algo.algo,
                             g.workspace, kWorkspace, stream_));
  }
}

void run_gemm_load(const GpuContext& ctx, double seconds) {
  const BusyGemm load(ctx.stream);
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds) {
    load.enqueue(20);
    CS_CUDA(cudaStreamSynchronize(ctx.stream));
  }
}

}  // namespace cs::calib
