// Per-unit costs: the eager-framework kernel gap and the once-per-step fp8 weight cast.
#include "sim/replay/unit_costs.hpp"

#include <gtest/gtest.h>

#include "tiny_gpt.hpp"

namespace cs {
namespace {

// The tiny GPT of step_replay_test on one GPU.
using Tiny = testing::TinyUnits;

// FixedCostModel: GEMM 1 ms, attention 2 / 4 ms, other kernels 0.1 ms. Forward = 2 layers x 6.5 ms + embedding
// 0.1 + output 1.2 = 14.3 ms over 2 x 10 + 1 + 3 = 24 operators; backward 27.3 ms over 2 x 14 + 1 + 4 = 33.
// A 10 us eager gap after each operator: 14.3 + 0.24 = 14.54 ms and 27.3 + 0.33 = 27.63 ms.
TEST(UnitCosts, EagerKernelGapFollowsEveryOperator) {
  Tiny t;
  EXPECT_EQ(t.costs().forward(0, 0).compute, Time::us(14'300));
  EXPECT_EQ(t.costs().backward(0, 0).compute, Time::us(27'300));
  t.train.kernel_gap = Time::us(10);
  EXPECT_EQ(t.costs().forward(0, 0).compute, Time::us(14'540));
  EXPECT_EQ(t.costs().backward(0, 0).compute, Time::us(27'630));
}

// A grouped GEMM launches one GEMM per local expert. The tiny model made MoE (4 experts, top 2, all on this GPU):
// a MoE layer's forward has 14 operators (5 attention, 9 MoE) but 20 launches (expert up and expert down launch 4
// each); its backward 19 operators, 31 launches (dgrad and wgrad of both expert GEMMs, 4 each). From a Python loop
// every launch pays the eager gap: forward 2 x 20 + embedding 1 + output 3 = 44 launches, 440 us of gaps;
// backward 2 x 31 + 1 + 4 = 67, 670 us. From a native loop (Transformer Engine) only each operator does: forward
// 2 x 14 + 1 + 3 = 32, 320 us; backward 2 x 19 + 1 + 4 = 43, 430 us.
TEST(UnitCosts, GroupedExpertGemmsPayTheGapPerExpertOnlyFromAPythonLoop) {
  Tiny t;
  t.model.experts = 4;
  t.model.top_k = 2;
  t.model.expert_ffn_hidden = 512;
  const Time fwd = t.costs().forward(0, 0).compute, bwd = t.costs().backward(0, 0).compute;
  t.train.kernel_gap = Time::us(10);
  t.train.grouped_launch = GroupedLaunch::python;
  EXPECT_EQ(t.costs().forward(0, 0).compute - fwd, Time::us(440));
  EXPECT_EQ(t.costs().backward(0, 0).compute - bwd, Time::us(670));
  t.train.grouped_launch = GroupedLaunch::native;
  EXPECT_EQ(t.costs().forward(0, 0).compute - fwd, Time::us(320));
  EXPECT_EQ(t.costs().backward(0, 0).compute - bwd, Time::us(430));
}

// Each further kernel of a grouped bandwidth-bound operator pays the kernel's fixed time: the tiny MoE in fp8 with
// current scaling quantises each expert's input in four kernels (zero the amax, amax, scale, cast), 16 launches for
// its 4 experts, for both expert GEMMs: 2 layers x 2 casts x 15 further launches x 2 us = 120 us more forward.
TEST(UnitCosts, GroupedMemoryKernelsPayTheKernelLatencyEach) {
  Tiny t;
  t.model.experts = 4;
  t.model.top_k = 2;
  t.model.expert_ffn_hidden = 512;
  t.train.precision = DType::fp8;
  t.train.fp8_recipe = Fp8Recipe::current;
  t.train.moe_router_padding = true;  // no padding copies: the casts alone
  const Time fwd = t.costs().forward(0, 0).compute;
  t.compute.latency = Time::us(2);
  EXPECT_EQ(t.costs().forward(0, 0).compute - fwd, Time::us(120));
}

// Under fp8 without fp8 parameters the weights are cast once per step, charged with the optimizer step: one more
// bandwidth-bound kernel (0.1 ms here) on top of Adam's; with fp8 parameters there is nothing to cast.
TEST(UnitCosts, Fp8WeightCastIsOncePerStep) {
  Tiny t;
  t.train.precision = DType::fp8;
  EXPECT_EQ(t.costs().optimizer(0), Time::us(200));
  t.train.fp8_params = true;
  EXPECT_EQ(t.costs().optimizer(0), Time::us(100));
}

// A multi-token prediction module on the (only) last stage: one more layer (forward 6.5 ms, backward 12.5 ms)
// and its head: two norms, the embedding lookup, the final norm and the cross-entropy (0.1 ms each) with the
// projection and logits GEMMs (1 ms each): forward 2.4 ms, backward 4 x 0.1 + 2 x 2 = 4.4 ms. Forward 14.3 +
// 6.5 + 2.4 = 23.2 ms, backward 27.3 + 12.5 + 4.4 = 44.2 ms; full recompute reruns the module's layer too.
TEST(UnitCosts, MultiTokenPredictionAddsALayerAndAHeadToTheLastStage) {
  Tiny t;
  t.model.mtp_layers = 1;
  EXPECT_EQ(t.costs().forward(0, 0).compute, Time::us(23'200));
  EXPECT_EQ(t.costs().backward(0, 0).compute, Time::us(44'200));
  t.train.recompute = Recompute::full;
  EXPECT_EQ(t.costs().backward(0, 0).compute, Time::us(44'200 + 3 * 6'500));
}

}  // namespace
}  // namespace cs
