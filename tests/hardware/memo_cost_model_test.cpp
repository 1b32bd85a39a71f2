// The remembering cost model answers exactly what the model it wraps answers, asks it once per shape, and
// may be shared by threads.
#include "sim/hardware/memo_cost_model.hpp"

#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "sim/hardware/device_profile.hpp"

namespace cs {
namespace {

std::vector<GemmShape> shapes(int n) {
  std::mt19937 rng(20261205);
  std::uniform_int_distribution<std::int64_t> size(64, 8192);
  std::vector<GemmShape> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(GemmShape{size(rng), size(rng), size(rng), i % 2 ? DType::fp8 : DType::bf16, 1,
                            static_cast<GemmLayout>(i % 3)});
  }
  return out;
}

TEST(MemoCostModel, AnswersAsTheModelItWrapsAndAsksItOncePerShape) {
  const auto inner = make_cost_model(find_device_profile("h200"));
  const MemoCostModel memo(*inner);
  const auto all = shapes(200);
  for (int pass = 0; pass < 3; ++pass) {
    for (const GemmShape& s : all) {
      const KernelLoad a = inner->gemm_load(s), b = memo.gemm_load(s);
      EXPECT_EQ(a.at_max_clock, b.at_max_clock);
      EXPECT_DOUBLE_EQ(a.clock_bound, b.clock_bound);
      EXPECT_DOUBLE_EQ(a.dynamic.value(), b.dynamic.value());
    }
  }
  EXPECT_EQ(memo.misses(), all.size());
  EXPECT_EQ(memo.hits(), 2 * all.size());
  // A kernel alone runs at its own clock, not at the highest: a separate answer, remembered as well.
  for (const GemmShape& s : all) EXPECT_EQ(memo.gemm(s), inner->gemm(s));
  EXPECT_EQ(memo.misses(), 2 * all.size());
  AttentionShape att{2, 32, 8, 4096, 4096, 128, true, false, DType::bf16};
  EXPECT_EQ(memo.attention(att), inner->attention(att));
  att.window = 1024;  // a different kernel: not the unwindowed one's answer
  EXPECT_EQ(memo.attention(att), inner->attention(att));
  EXPECT_LT(memo.attention(att), memo.attention(AttentionShape{2, 32, 8, 4096, 4096, 128, true, false, DType::bf16}));
  EXPECT_EQ(memo.memory_bound(Bytes{1e9}), inner->memory_bound(Bytes{1e9}));
}

TEST(MemoCostModel, ThreadsSharingItGetTheSameAnswers) {
  const auto inner = make_cost_model(find_device_profile("h200"));
  const MemoCostModel memo(*inner);
  const auto all = shapes(300);
  std::vector<std::vector<Time>> seen(4);
  {
    std::vector<std::jthread> pool;
    for (int i = 0; i < 4; ++i) {
      pool.emplace_back([&, i] {
        for (const GemmShape& s : all) seen[i].push_back(memo.gemm(s));
      });
    }
  }
  for (std::size_t j = 0; j < all.size(); ++j) {
    for (int i = 0; i < 4; ++i) EXPECT_EQ(seen[i][j], inner->gemm(all[j]));
  }
  EXPECT_EQ(memo.hits() + memo.misses(), 4 * all.size());
}

}  // namespace
}  // namespace cs
