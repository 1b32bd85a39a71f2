// Hybrid state-space models (Nemotron-H, Nemotron 3): layers that are single blocks (a Mamba-2 mixer, attention,
// an MLP or an MoE MLP, Megatron-Core's hybrid_layer_pattern), the mixer's operators under TP and CP, its
// parameters and saved activations, and the checks on bad patterns and layouts.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "sim/core/error.hpp"
#include "sim/input/input_node.hpp"
#include "sim/workload/layer_ops.hpp"
#include "sim/workload/memory_model.hpp"
#include "sim/workload/model_spec.hpp"
#include "find_op.hpp"
#include "zoo_preset.hpp"

namespace cs {
namespace {

using testing::find_op;
using testing::zoo_preset;

// Nemotron-H 56B's DGX Cloud layout: TP 8 with sequence parallelism, fp8, micro-batch 1 of 8,192 tokens.
std::pair<ParallelPlan, TrainingConfig> tp8_fp8() {
  ParallelPlan p;
  p.tp = 8;
  p.sequence_parallel = true;
  TrainingConfig t;
  t.seq_len = 8192;
  t.micro_batch = 1;
  t.precision = DType::fp8;
  return {p, t};
}

// NVIDIA's published sizes: Nemotron-H 56B and 8B (arXiv 2504.03624), Nemotron Nano 2 9B and 12B, Nemotron 3 Nano
// 30B-A3B "31.6B total, 3.6B active including embeddings" (their model cards). The presets' layer patterns and
// widths are Megatron-Bridge's.
TEST(Mamba, PresetsHaveThePublishedParameterCounts) {
  const ModelSpec h56 = zoo_preset("nemotron-h-56b");
  EXPECT_EQ(h56.layers, 118);
  EXPECT_EQ(h56.count(LayerKind::mamba), 54);
  EXPECT_EQ(h56.count(LayerKind::mlp), 54);
  EXPECT_EQ(h56.count(LayerKind::attention), 10);
  EXPECT_NEAR(h56.total_params() / 1e9, 56.0, 0.5);
  EXPECT_NEAR(zoo_preset("nemotron-h-8b").total_params() / 1e9, 8.1, 0.1);
  // Nemotron Nano 2 (model cards: 8.89B and 12.31B), 80-wide SSM heads.
  EXPECT_NEAR(zoo_preset("nemotron-nano-9b-v2").total_params() / 1e9, 8.89, 0.01);
  EXPECT_NEAR(zoo_preset("nemotron-nano-12b-v2").total_params() / 1e9, 12.31, 0.01);
  const ModelSpec nano = zoo_preset("nemotron-3-nano");
  EXPECT_EQ(nano.count(LayerKind::moe_mlp), 23);
  EXPECT_EQ(nano.count(LayerKind::moe), 0);  // no layer holds attention and experts together
  EXPECT_NEAR(nano.total_params() / 1e9, 31.6, 0.1);
  EXPECT_NEAR(nano.active_params() / 1e9, 3.6, 0.05);
}

// One mixer of Nemotron-H 56B: in_proj 8,192 -> 2 x 16,384 + 2 x 8 x 256 + 256 = 37,120, out_proj 16,384 -> 8,192,
// the convolution over x, B and C (16,384 + 4,096 channels of width 4, with bias), A, D and dt's bias per head,
// the gated norm's weight.
TEST(Mamba, MixerParameters) {
  const ModelSpec m = zoo_preset("nemotron-h-56b");
  EXPECT_EQ(m.mamba_inner(), 16384);
  EXPECT_EQ(m.mamba_in_proj(), 37120);
  EXPECT_DOUBLE_EQ(m.mamba_params(), 8192.0 * 37120 + 20480.0 * 5 + 3.0 * 256 + 16384 + 16384.0 * 8192);
}

// TP 8, sequence parallel, fp8, micro-batch 1 of 8,192 tokens: in_proj and out_proj are the TP-split fp8 GEMMs
// (37,120 / 8 = 4,640 columns; 16,384 / 8 = 2,048 rows), entered and left through the TP all-gather and
// reduce-scatter; the scan's matrix products stay 16-bit, over 64 chunks of 128 tokens x 32 local heads.
TEST(Mamba, MixerOperatorsUnderTensorParallelism) {
  const ModelSpec m = zoo_preset("nemotron-h-56b");
  const auto [p, t] = tp8_fp8();
  const auto ops = forward_ops(LayerPart::mamba_layer, m, p, t);
  const Op& in = find_op(ops, "Mamba in_proj");
  EXPECT_EQ(in.gemm.m, 8192);
  EXPECT_EQ(in.gemm.n, 4640);
  EXPECT_EQ(in.gemm.k, 8192);
  EXPECT_EQ(in.gemm.dtype, DType::fp8);
  const Op& out = find_op(ops, "Mamba out_proj");
  EXPECT_EQ(out.gemm.n, 8192);
  EXPECT_EQ(out.gemm.k, 2048);
  EXPECT_EQ(find_op(ops, "Mamba TP all-gather").collective, CollectiveKind::all_gather);
  EXPECT_EQ(find_op(ops, "Mamba TP reduce-scatter").collective, CollectiveKind::reduce_scatter);
  // The projections' model FLOPs are Megatron-LM's (mamba_layer_flops: 2 x tokens x h x in_proj width, and
  // 2 x tokens x d_inner x h), split over the TP ranks.
  EXPECT_DOUBLE_EQ(in.model_flops.value() + out.model_flops.value(),
                   (2.0 * 8192 * 8192 * 37120 + 2.0 * 8192 * 16384 * 8192) / 8);
  const Op& states = find_op(ops, "SSD chunk states");  // B^T X per chunk and head: P x N x L, stacked
  EXPECT_EQ(states.gemm.dtype, DType::bf16);
  EXPECT_EQ(states.gemm.m, 64 * 32 * 64);
  EXPECT_EQ(states.gemm.n, 256);
  EXPECT_EQ(states.gemm.k, 128);
  EXPECT_EQ(find_op(ops, "SSD chunk C B^T").gemm.m, 64 * 1 * 128);  // one of the 8 groups per TP rank
  // Each chunk and head has its own gradient of the state's factor: the weight gradient is 2,048 products of
  // 128 x 256 over 64 rows, stacked, not one 128 x 256 product reduced over all 131,072 rows.
  const auto back = backward_ops(ops);
  const Op& dw = find_op(back, "SSD chunk states wgrad");
  EXPECT_EQ(dw.gemm.m, 2048 * 128);
  EXPECT_EQ(dw.gemm.n, 256);
  EXPECT_EQ(dw.gemm.k, 64);
  EXPECT_DOUBLE_EQ(dw.gemm.flops().value(), states.gemm.flops().value());
  EXPECT_EQ(find_op(back, "SSD chunk states dgrad").gemm.m, 2048 * 64);
  for (const Op& o : ops) EXPECT_NE(o.group, CommGroup::cp) << o.name;  // no CP: no CP exchange
}

// CP 2 (Megatron-Core MambaContextParallel): an all-to-all over the CP group before the convolution (in_proj's
// output) and after the scan (its output), and the scan runs the whole sequence for half the heads.
TEST(Mamba, ContextParallelTradesTheSequenceSplitForAHeadSplit) {
  const ModelSpec m = zoo_preset("nemotron-h-8b");
  ParallelPlan p;
  p.tp = 2;
  p.cp = 2;
  p.sequence_parallel = true;
  TrainingConfig t;
  t.seq_len = 8192;
  t.micro_batch = 1;
  const auto ops = forward_ops(LayerPart::mamba_layer, m, p, t);
  const Op& a2a = find_op(ops, "Mamba CP all-to-all (sequence to heads)");
  EXPECT_EQ(a2a.collective, CollectiveKind::all_to_all);
  EXPECT_DOUBLE_EQ(a2a.bytes.value(), 4096.0 * (m.mamba_in_proj() / 2) * 2);
  EXPECT_EQ(find_op(ops, "Mamba CP all-to-all (heads to sequence)").group, CommGroup::cp);
  // 64 chunks of the whole sequence x 32 heads (128 / TP 2 / CP 2).
  EXPECT_EQ(find_op(ops, "SSD chunk states").gemm.m, 64 * 32 * 64);
}

// A hybrid model's single blocks: an attention layer has no FFN, an MLP layer no attention, and an MoE MLP layer
// routes its tokens without attention.
TEST(Mamba, SingleBlockLayers) {
  const ModelSpec nano = zoo_preset("nemotron-3-nano");
  ParallelPlan p;
  p.ep = 8;
  TrainingConfig t;
  t.seq_len = 8192;
  const auto has = [](const std::vector<Op>& ops, const std::string& name) {
    for (const Op& o : ops) if (o.name == name) return true;
    return false;
  };
  const auto attention = forward_ops(layer_part(LayerKind::attention), nano, p, t);
  EXPECT_TRUE(has(attention, "attention"));
  EXPECT_FALSE(has(attention, "router"));
  const auto moe = forward_ops(layer_part(LayerKind::moe_mlp), nano, p, t);
  EXPECT_TRUE(has(moe, "router"));
  EXPECT_TRUE(has(moe, "EP dispatch all-to-all"));
  EXPECT_FALSE(has(moe, "attention"));
  EXPECT_EQ(nano.layer_kind(0), LayerKind::mamba);
  EXPECT_EQ(nano.layer_kind(1), LayerKind::moe_mlp);
  EXPECT_EQ(nano.layer_kind(5), LayerKind::attention);
}

// What a mixer keeps for its backward (memory-efficient path): per token, in_proj's 16-bit output (37,120 wide),
// the scan's output (16,384) and out_proj's input (16,384, 1 byte under fp8), split over TP 8; outside TP the
// norm's input, the residual's mask and in_proj's input, split over TP by sequence parallelism.
TEST(Mamba, SavedActivations) {
  const ModelSpec m = zoo_preset("nemotron-h-56b");
  const auto [p, t] = tp8_fp8();
  const double per_token = (2.0 * 37120 + 2.0 * 16384 + 1.0 * 16384) / 8 + (3.0 + 1.0) * 8192 / 8;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(m, p, t, LayerKind::mamba).value(), 8192 * per_token);
  // An MLP-only layer keeps one block's outside tensors, a transformer layer two.
  const double mlp = activation_bytes_per_layer(m, p, t, LayerKind::mlp).value();
  const double attention = activation_bytes_per_layer(m, p, t, LayerKind::attention).value();
  const double dense = activation_bytes_per_layer(m, p, t, LayerKind::dense).value();
  EXPECT_DOUBLE_EQ(mlp + attention, dense);
}

TEST(Mamba, BadPatternsAreRefusedWithTheirKeyAndLine) {
  const std::string base = "hidden: 512\nheads: 4\nvocab: 100\nseq_len: 64\nmamba_heads: 16\n";
  const auto refused = [&](const std::string& extra, const std::string& line, const std::string& words) {
    try {
      (void)parse_model_spec(InputNode::parse(base + extra, "m.yaml"));
      ADD_FAILURE() << "accepted: " << extra;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("m.yaml:" + line), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused("hybrid_pattern: M-X*\n", "6", "'X'");
  refused("hybrid_pattern: M-M*\nlayers: 3\n", "7", "length of hybrid_pattern (4)");
  refused("hybrid_pattern: M-E*\n", "6", "experts must be given");
  refused("hybrid_pattern: M-M*\nmamba_groups: 3\n", "7", "mamba_groups");
  // The pattern gives the depth when layers is left out.
  const ModelSpec ok = parse_model_spec(InputNode::parse(base + "hybrid_pattern: M-M*\n", "m.yaml"));
  EXPECT_EQ(ok.layers, 4);
  EXPECT_EQ(ok.count(LayerKind::mamba), 2);
}

// Megatron-Core splits the SSM heads and the B/C groups over TP and, under CP, over CP as well.
TEST(Mamba, LayoutsMustSplitTheHeadsAndGroups) {
  const ModelSpec m = zoo_preset("nemotron-h-8b");  // 128 heads, 8 groups
  TrainingConfig t;
  t.seq_len = 8192;
  t.global_batch = 16;
  ParallelPlan p;
  p.tp = 8;
  p.dp = 2;
  EXPECT_NO_THROW(check_plan({}, m, p, t, 16, 8));
  p.tp = 4;
  p.cp = 4;  // 8 / 4 = 2 groups per TP rank cannot split over 4 CP ranks
  p.dp = 1;
  try {
    check_plan({}, m, p, t, 16, 8);
    FAIL() << "CP 4 over 2 groups per rank was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("parallelism.cp"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cs
