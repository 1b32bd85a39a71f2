#include "sim/serving/iteration_cost.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include "../replay/fixed_cost_model.hpp"
#include "serving_fixtures.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/replica_memory.hpp"

namespace cs {
namespace {

using testing::FixedCostModel;
using testing::h100_cost;
using testing::llama_1b5;

BatchShape decode_batch(std::int64_t batch, std::int64_t ctx) {
  BatchShape b;
  b.decodes = batch;
  b.decode_context = batch * ctx;
  return b;
}

BatchShape prefill_batch(std::int64_t batch, std::int64_t prompt) {
  BatchShape b;
  for (std::int64_t i = 0; i < batch; ++i) b.prefills.push_back({prompt, 0, true});
  return b;
}

ModelSpec two_layers() {
  ModelSpec m = llama_1b5();
  m.layers = 2;
  return m;
}

/// 1 us per GEMM, 2 us per attention kernel, 0.1 us per bandwidth-bound kernel.
FixedCostModel flat() {
  FixedCostModel f;
  f.gemm_time = Time::us(1);
  f.attention_forward = Time::us(2);
  f.memory_time = Time::ns(100);
  return f;
}

TEST(IterationCost, KernelsAddUpOnTheStream) {
  const FixedCostModel fixed = flat();
  const auto comm = testing::nvlink_ring(1);
  EngineConfig e;
  e.host_launch_cost = Time::us(10);
  const IterationCost cost(two_layers(), Deployment{}, e, fixed, comm);
  // A dense layer on one GPU decoding: norm, QKV, RoPE, KV write, decode attention (a cache read), output
  // projection, norm, gate/up, activation, down: 4 GEMMs of 1 us and 6 bandwidth-bound kernels of 0.1 us.
  // The head: embedding, final norm, logits GEMM, cast, sampling: 1 us + 4 x 0.1 us.
  const IterationBreakdown d = cost.breakdown(decode_batch(3, 100));
  EXPECT_EQ(d.gemm, Time::us(2 * 4 + 1));
  EXPECT_EQ(d.memory + d.attention, Time::ns(2 * 600 + 400));
  EXPECT_EQ(d.communication, Time::zero());
  EXPECT_EQ(d.kernels, 2 * 10 + 5);
  // Decode-only with CUDA graphs: one graph launch, then the 25 kernels back to back.
  EXPECT_TRUE(d.graph);
  EXPECT_EQ(d.total(), Time::us(10) + Time::ns(10'600));
  // A prompt makes the iteration eager: 26 kernels (prompt attention, 2 us, joins each layer; the decode
  // attention leaves) each launched at 10 us, the GPU always waiting: 26 x 10 us + the last kernel's 0.1 us.
  const IterationBreakdown p = cost.breakdown(prefill_batch(1, 64));
  EXPECT_FALSE(p.graph);
  EXPECT_EQ(p.kernels, 25);
  EXPECT_EQ(p.total(), Time::us(250) + Time::ns(100));
  EXPECT_EQ(cost.price(BatchShape{}), Time::zero());
}

TEST(IterationCost, EagerDecodeWhenGraphsAreOff) {
  const FixedCostModel fixed = flat();
  const auto comm = testing::nvlink_ring(1);
  EngineConfig e;
  e.cuda_graphs = false;
  e.host_launch_cost = Time::us(10);
  e.iteration_overhead = Time::us(300);
  const IterationCost cost(two_layers(), Deployment{}, e, fixed, comm);
  // 25 launches at 10 us, the last kernel 0.1 us, after the scheduler's 300 us.
  EXPECT_EQ(cost.price(decode_batch(3, 100)), Time::us(300 + 250) + Time::ns(100));
}

TEST(IterationCost, TwoAllReducesPerLayerAndTheLogitsGather) {
  const FixedCostModel fixed = flat();
  const AlphaBetaComm comm(2, Bandwidth{100e9}, Time::us(1));
  Deployment d;
  d.tp = 2;
  const IterationCost cost(two_layers(), d, EngineConfig{}, fixed, comm);
  // 5 tokens: each all-reduce moves 5 x 2048 x 2 B per rank; the 5 sampled rows' logits are gathered whole.
  const IterationBreakdown b = cost.breakdown(decode_batch(5, 40));
  const Time reduce = comm.all_reduce(Bytes{5.0 * 2048 * 2});
  const Time gather = comm.all_gather(Bytes{5.0 * 128256 * 2});
  EXPECT_EQ(reduce, Bytes{20480.0} / Bandwidth{100e9} + Time::us(2));  // 2 (n-1)/n S/B + 2 (n-1) a, n = 2
  EXPECT_EQ(b.communication, reduce * 4 + gather);
  EXPECT_EQ(b.kernels, 2 * 12 + 6);
}

TEST(IterationCost, PromptChunksAttendToWhatIsCached) {
  const ShardedModel s(two_layers(), Deployment{});
  // 64 new tokens after 128 cached: 64 x 128 + 64 x 65 / 2 query-key pairs, the unmasked 64 x (128 + 32).
  const AttentionShape chunk = chunk_attention(s, 64, 128, 1, false);
  EXPECT_EQ(chunk.seq_q, 64);
  EXPECT_EQ(chunk.seq_kv, 160);
  EXPECT_FALSE(chunk.causal);
  const AttentionShape whole = chunk_attention(s, 100, 0, 2, false);
  EXPECT_EQ(whole.seq_q, 100);
  EXPECT_EQ(whole.seq_kv, 100);
  EXPECT_TRUE(whole.causal);
  EXPECT_EQ(whole.batch, 2);
  EXPECT_EQ(whole.heads, 32);
  EXPECT_EQ(whole.kv_heads, 8);
  EXPECT_EQ(whole.head_dim, 64);
  // Equal chunks run as one kernel: two attention kernels of 2 us per layer for three chunks.
  const FixedCostModel fixed = flat();
  const auto comm = testing::nvlink_ring(1);
  const IterationCost cost(two_layers(), Deployment{}, EngineConfig{}, fixed, comm);
  BatchShape b;
  b.prefills = {{64, 128, false}, {100, 0, true}, {100, 0, true}};
  EXPECT_EQ(cost.breakdown(b).attention, Time::us(2 * 2 * 2));
  EXPECT_EQ(b.tokens(), 264);
  EXPECT_EQ(b.sampled(), 2);
}

TEST(IterationCost, MoeLayersRouteToTheirActiveExperts) {
  ModelSpec m = two_layers();
  m.experts = 8;
  m.top_k = 2;
  m.expert_ffn_hidden = 1024;
  m.shared_experts = 1;
  Deployment d;
  d.tp = 2;
  d.ep = 2;
  const ShardedModel s(m, d);
  EXPECT_EQ(s.local_experts, 4);
  EXPECT_EQ(s.expert_width, 1024);  // whole experts: ep = tp
  EXPECT_EQ(s.shared_expert_width, 512);
  // One token picks 2 of 8 experts: 1 - (6/8)^1 of each GPU's 4 is active, 1 expected; many tokens: all 4.
  EXPECT_DOUBLE_EQ(s.active_local_experts(1), 1.0);
  EXPECT_NEAR(s.active_local_experts(4096), 4.0, 1e-12);
  const FixedCostModel fixed = flat();
  const auto comm = testing::nvlink_ring(1);
  const IterationCost cost(m, Deployment{}, EngineConfig{}, fixed, comm);
  // Per MoE layer: norm, QKV, RoPE, KV write, attention, O, norm, router, top-k, permute, expert gate/up, act,
  // down, shared gate/up, act, down, combine: 17 kernels, 7 of them GEMMs.
  const IterationBreakdown b = cost.breakdown(decode_batch(1, 10));
  EXPECT_EQ(b.kernels, 2 * 17 + 5);
  EXPECT_EQ(b.gemm, Time::us(2 * 7 + 1));
}

TEST(IterationCost, ReplicaMemoryOfLlama70bAtTp4) {
  Deployment d;
  d.tp = 4;
  const ShardedModel s(testing::llama3_70b(), d);
  // 80 layers x 2 of the 8 key/value heads x (128 + 128) x 2 B.
  EXPECT_DOUBLE_EQ(s.kv_bytes_per_token().value(), 80.0 * 2 * 256 * 2);
  // Layers: 80 x (8192 x (8192 + 1024 + 1024) + 8192^2 + 3 x 8192 x 28672) / 4 x 2 B; embedding and output
  // layer 2 x 128256 x 8192 / 4 x 2 B.
  EXPECT_DOUBLE_EQ(s.weight_bytes().value(), 80.0 * 855638016 / 4 * 2 + 2.0 * 128256 * 8192 / 4 * 2);
  EngineConfig e;
  const ReplicaMemory mem = plan_replica_memory(s, e, Bytes{85017493504.0});
  EXPECT_EQ(mem.blocks, static_cast<std::int64_t>(mem.kv_cache.value() / (16 * 81920.0)));
  EXPECT_DOUBLE_EQ(mem.kv_cache.value(), 85017493504.0 * 0.9 - mem.weights.value() - mem.activations.value());
  // One GPU cannot hold the weights: the error says so with the numbers.
  try {
    (void)plan_replica_memory(ShardedModel(testing::llama3_70b(), Deployment{}), e, Bytes{85017493504.0});
    FAIL();
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("the weights do not fit: 131.4 GiB of weights and 1.902 GiB of activations per GPU (tp 1, pp 1) "
                                             "exceed the 71.26 GiB usable (90.0 % of 79.18 GiB)"), std::string::npos)
        << err.what();
  }
  e.kv_cache_memory = Bytes{16.0 * 81920 * 3};
  EXPECT_EQ(plan_replica_memory(s, e, Bytes{85017493504.0}).blocks, 3);
}

TEST(IterationCost, SwapCopiesEveryGpusShare) {
  const FixedCostModel fixed = flat();
  const auto comm = testing::nvlink_ring(1);
  EngineConfig e;
  e.swap_bandwidth = Bandwidth{50e9};
  const IterationCost cost(llama_1b5(), Deployment{}, e, fixed, comm);
  // 16 layers x 8 heads x 128 x 2 B = 32 KiB a token; 3 blocks of 16 tokens at 50 GB/s.
  EXPECT_EQ(cost.swap_time(3), Bytes{3.0 * 16 * 32768} / Bandwidth{50e9});
}

// The serving rows (../shared/validation/serving_rows.csv: one H100, plain PyTorch; decode steps replayed as
// CUDA graphs, prefills eager): what the h100-sxm profile's kernels make of them, as information (not fitted).
// The band only catches a gross change.
TEST(IterationCost, ServingRowsInRange) {
  struct Row {
    const char* id;
    bool decode;
    int batch, tokens;  ///< the context of a decode, the prompt of a prefill
    double measured_ms;
  };
  const Row rows[] = {
      {"1b-1", false, 1, 128, 7.316},   {"1b-2", false, 1, 512, 6.695},    {"1b-3", false, 1, 2048, 10.968},
      {"1b-4", false, 1, 8192, 47.677}, {"1b-5", false, 4, 2048, 41.004},  {"1b-6", false, 16, 512, 38.032},
      {"1b-7", true, 1, 512, 2.030},    {"1b-8", true, 8, 512, 2.227},     {"1b-9", true, 32, 512, 2.414},
      {"1b-10", true, 64, 512, 2.678},  {"1b-11", true, 128, 512, 3.174},  {"1b-12", true, 256, 512, 4.091},
      {"1b-13", true, 1, 2048, 2.052},  {"1b-14", true, 8, 2048, 2.353},   {"1b-15", true, 32, 2048, 2.924},
      {"1b-16", true, 64, 2048, 3.718}, {"1b-17", true, 128, 2048, 5.260}, {"1b-18", true, 1, 8192, 2.137},
      {"1b-19", true, 8, 8192, 2.889},  {"1b-20", true, 32, 8192, 4.984}};
  const auto comm = testing::nvlink_ring(1);
  const IterationCost cost(llama_1b5(), Deployment{}, EngineConfig{}, h100_cost(), comm);
  for (const Row& r : rows) {
    const BatchShape b = r.decode ? decode_batch(r.batch, r.tokens) : prefill_batch(r.batch, r.tokens);
    const double ms = cost.price(b).seconds() * 1e3;
    std::printf("h100-serve-%-5s %s batch %3d %s %5d: %6.3f ms against %6.3f ms measured (%+.0f%%)\n", r.id,
                r.decode ? "decode " : "prefill", r.batch, r.decode ? "ctx   " : "prompt", r.tokens, ms,
                r.measured_ms, 100.0 * (ms / r.measured_ms - 1.0));
    EXPECT_GT(ms, 0.6 * r.measured_ms) << r.id;
    EXPECT_LT(ms, 1.4 * r.measured_ms) << r.id;
  }
}

TEST(IterationCost, DecodeGrowsWithBatchAndContext) {
  Deployment d;
  d.tp = 4;
  const auto comm = testing::nvlink_ring(4);
  const IterationCost cost(testing::llama3_70b(), d, EngineConfig{}, h100_cost(), comm);
  Time last;
  for (int batch : {1, 8, 64, 256}) {
    const Time t = cost.price(decode_batch(batch, 1024));
    EXPECT_GT(t, last) << batch;
    last = t;
  }
  EXPECT_GT(cost.price(decode_batch(64, 4096)), cost.price(decode_batch(64, 1024)));
  // A skinny decode streams the weights: 35 GB per GPU at 3.35 TB/s is at least 10.5 ms.
  EXPECT_GT(cost.breakdown(decode_batch(1, 1024)).gemm, Time::ms(10.5));
  // Token counts need no alignment (PyTorch's cuBLAS call puts the features on m).
  const double odd = cost.price(prefill_batch(1, 1025)).seconds(), even = cost.price(prefill_batch(1, 1024)).seconds();
  EXPECT_NEAR(odd / even, 1.0, 0.01);
}

TEST(IterationCost, HybridModelsAreNotServedYet) {
  ModelSpec m = llama_1b5();
  m.hybrid_pattern = "M*M*";
  m.layers = 4;
  m.mamba_heads = 32;
  const FixedCostModel fixed = flat();
  const auto comm = testing::nvlink_ring(1);
  EXPECT_THROW(IterationCost(m, Deployment{}, EngineConfig{}, fixed, comm), InputError);
}

}  // namespace
}  // namespace cs
