#include "sim/serving/iteration_cost.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include "serving_fixtures.hpp"

namespace cs {
namespace {

using testing::h100_cost;
using testing::llama_1b5;

BatchShape decode(std::int64_t batch, std::int64_t ctx) {
  BatchShape b;
  b.decodes = batch;
  b.decode_context = batch * ctx;
  return b;
}

BatchShape prefill(std::int64_t batch, std::int64_t prompt) {
  BatchShape b;
  for (std::int64_t i = 0; i < batch; ++i) b.prefills.push_back({prompt, 0, true});
  return b;
}

TEST(IterationCost, ServingRowsInformation) {
  const auto comm = testing::nvlink_ring(1);
  EngineConfig graphs;
  EngineConfig eager;
  eager.cuda_graphs = false;
  const IterationCost g(llama_1b5(), Deployment{}, graphs, h100_cost(), comm);
  const IterationCost e(llama_1b5(), Deployment{}, eager, h100_cost(), comm);
  for (auto [batch, ctx] : {std::pair{1, 512}, {8, 512}, {32, 512}, {64, 512}, {128, 512}, {256, 512}, {1, 2048},
                            {8, 2048}, {32, 2048}, {64, 2048}, {128, 2048}, {1, 8192}, {8, 8192}, {32, 8192}}) {
    const auto b = g.breakdown(decode(batch, ctx));
    std::printf("decode b=%3d ctx=%5d graph %8.3f ms (gemm %.3f attn %.3f mem %.3f) eager %8.3f ms, %d kernels\n",
                batch, ctx, b.total().seconds() * 1e3, b.gemm.seconds() * 1e3, b.attention.seconds() * 1e3,
                b.memory.seconds() * 1e3, e.price(decode(batch, ctx)).seconds() * 1e3, b.kernels);
  }
  for (auto [batch, prompt] : {std::pair{1, 128}, {1, 512}, {1, 2048}, {1, 8192}, {4, 2048}, {16, 512}}) {
    const auto b = e.breakdown(prefill(batch, prompt));
    std::printf("prefill b=%3d len=%5d eager %8.3f ms (gemm %.3f attn %.3f mem %.3f wait %.3f)\n", batch, prompt,
                b.total().seconds() * 1e3, b.gemm.seconds() * 1e3, b.attention.seconds() * 1e3,
                b.memory.seconds() * 1e3, b.host_wait.seconds() * 1e3);
  }
}

}  // namespace
}  // namespace cs
namespace cs {
namespace {
TEST(IterationCost, Llama70bInformation) {
  const auto comm = testing::nvlink_ring(4);
  Deployment d;
  d.tp = 4;
  const IterationCost g(testing::llama3_70b(), d, EngineConfig{}, h100_cost(), comm);
  for (auto [batch, ctx] : {std::pair{1, 1024}, {64, 1024}, {256, 1024}}) {
    const auto b = g.breakdown(decode(batch, ctx));
    std::printf("70B decode b=%3d ctx=%5d %8.3f ms (gemm %.3f attn %.3f mem %.3f comm %.3f wait %.3f)\n", batch, ctx,
                b.total().seconds() * 1e3, b.gemm.seconds() * 1e3, b.attention.seconds() * 1e3,
                b.memory.seconds() * 1e3, b.communication.seconds() * 1e3, b.host_wait.seconds() * 1e3);
  }
  for (auto [batch, prompt] : {std::pair{1, 100}, {1, 300}, {1, 600}, {1, 1024}, {1, 1025}, {1, 1100}, {1, 1500}, {1, 3000}, {1, 8000}, {8, 1024}}) {
    const auto b = g.breakdown(prefill(batch, prompt));
    std::printf("70B prefill b=%3d len=%5d %8.3f ms (gemm %.3f attn %.3f mem %.3f comm %.3f wait %.3f) %d kernels\n",
                batch, prompt, b.total().seconds() * 1e3, b.gemm.seconds() * 1e3, b.attention.seconds() * 1e3,
                b.memory.seconds() * 1e3, b.communication.seconds() * 1e3, b.host_wait.seconds() * 1e3, b.kernels);
  }
}
}  // namespace
}  // namespace cs
