// Megatron-Core's fine-grained recompute (training.recompute_modules): the named modules' forward ops rerun before
// their backward, and the activations they would keep are not held. Checked by hand on a small MoE model with
// fixed kernel times, and on the memory model's per-token terms.
#include <gtest/gtest.h>

#include "sim/replay/unit_costs.hpp"
#include "sim/workload/memory_model.hpp"
#include "tiny_gpt.hpp"

namespace cs {
namespace {

// The tiny GPT made MoE: 2 MoE layers (8 experts, top-2, expert FFN 512, gated), h = 256, one GPU.
struct TinyMoe : testing::TinyUnits {
  TinyMoe() {
    model.gated_ffn = true;
    model.experts = 8;
    model.top_k = 2;
    model.expert_ffn_hidden = 512;
  }
};

// moe_act reruns each MoE layer's expert activation kernel (0.1 ms in FixedCostModel) before the backward: 2
// layers add 0.2 ms; layernorm reruns the two norms of each layer, 0.4 ms more. The forward is unchanged.
TEST(RecomputeModules, NamedModulesRerunTheirForwardKernels) {
  TinyMoe t;
  const Time forward = t.costs().forward(0, 0).compute, backward = t.costs().backward(0, 0).compute;
  t.train.recompute_modules.moe_act = true;
  EXPECT_EQ(t.costs().forward(0, 0).compute, forward);
  EXPECT_EQ(t.costs().backward(0, 0).compute, backward + Time::us(200));
  t.train.recompute_modules.layernorm = true;
  EXPECT_EQ(t.costs().backward(0, 0).compute, backward + Time::us(600));
  // Full recompute already reruns every layer: the modules add nothing to it.
  t.train.recompute = Recompute::full;
  const Time full = t.costs().backward(0, 0).compute;
  t.train.recompute_modules = RecomputeModules{};
  EXPECT_EQ(t.costs().backward(0, 0).compute, full);
}

// Per token, with bf16 (2-byte) tensors and no TP: moe_act drops each routed copy's activation output (2 x f =
// 1,024 B per copy, 2 copies), layernorm the norm outputs that feed QKV and the experts (2 x 2h = 1,024 B).
TEST(RecomputeModules, NamedModulesKeepLessActivationMemory) {
  TinyMoe t;
  const double tokens = 128;
  const double base = activation_bytes_per_layer(t.model, t.plan, t.train, LayerKind::moe).value();
  t.train.recompute_modules.moe_act = true;
  EXPECT_DOUBLE_EQ(base - activation_bytes_per_layer(t.model, t.plan, t.train, LayerKind::moe).value(), tokens * 2 * 2 * 512);
  t.train.recompute_modules = RecomputeModules{};
  t.train.recompute_modules.layernorm = true;
  EXPECT_DOUBLE_EQ(base - activation_bytes_per_layer(t.model, t.plan, t.train, LayerKind::moe).value(), tokens * 2 * 2 * 256);
  // The whole MoE block: none of its FFN tensors (per copy 2 x 2f up+gate, 2f activation output: 3,072 B).
  t.train.recompute_modules = RecomputeModules{};
  t.train.recompute_modules.moe = true;
  EXPECT_DOUBLE_EQ(base - activation_bytes_per_layer(t.model, t.plan, t.train, LayerKind::moe).value(), tokens * 2 * 3 * 2 * 512);
}

}  // namespace
}  // namespace cs
