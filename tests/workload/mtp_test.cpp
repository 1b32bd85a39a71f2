// Multi-token prediction (DeepSeek-V3 section 2.2; Megatron-Core mtp_num_layers): each module adds, on the last
// pipeline stage, one transformer layer of the model's last kind, a 2h -> h projection and another pass through
// the shared output head and loss; with the loss counted in the pipeline split, each module counts as a layer
// there too (NeMo's DeepSeek-V3 recipe: 61 layers + embedding + loss + MTP = 64 units on PP 16: 3 | 4 x 14 | 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/core/error.hpp"
#include "sim/input/input_node.hpp"
#include "sim/workload/layer_ops.hpp"
#include "sim/workload/memory_model.hpp"
#include "sim/workload/model_spec.hpp"
#include "sim/workload/model_zoo.hpp"
#include "find_op.hpp"
#include "zoo_preset.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace cs {
namespace {

using testing::deepseek;

TEST(Mtp, TheDeepSeekV3PresetTrainsWithOneModule) { EXPECT_EQ(deepseek().mtp_layers, 1); }

// TP 2, micro-batch 1 of 4,096 tokens: the projection is 4,096 x (7,168 / 2) x 14,336 and the head 4,096 x
// (129,280 / 2) x 7,168 in 16-bit, as the main head.
TEST(Mtp, HeadOperatorsUnderTensorParallelism) {
  const ModelSpec m = deepseek();
  ParallelPlan p;
  p.tp = 2;
  p.sequence_parallel = true;
  TrainingConfig t;
  t.seq_len = 4096;
  t.micro_batch = 1;
  t.precision = DType::fp8;
  const auto ops = forward_ops(LayerPart::mtp_head, m, p, t);
  const auto find = [&](const std::string& name) { return testing::find_op(ops, name); };
  const Op proj = find("MTP projection");
  EXPECT_EQ(proj.gemm.m, 4096);
  EXPECT_EQ(proj.gemm.n, 7168 / 2);
  EXPECT_EQ(proj.gemm.k, 2 * 7168);
  EXPECT_EQ(proj.gemm.dtype, DType::fp8);
  const Op logits = find("MTP logits");
  EXPECT_EQ(logits.gemm.n, 129280 / 2);
  EXPECT_EQ(logits.gemm.k, 7168);
  EXPECT_EQ(logits.gemm.dtype, DType::bf16);  // the output layer stays 16-bit under fp8
  EXPECT_EQ(find("MTP projection TP all-gather").collective, CollectiveKind::all_gather);
  EXPECT_EQ(find("MTP projection TP reduce-scatter").collective, CollectiveKind::reduce_scatter);
}

TEST(Mtp, TheLossAndEachModuleCountInThePipelineSplit) {
  ModelSpec m = deepseek();
  ParallelPlan p;
  p.pp = 16;
  p.embedding_in_split = p.loss_in_split = true;
  auto counts = virtual_stage_layer_counts(m, p);
  ASSERT_EQ(counts.size(), 16u);
  EXPECT_EQ(counts.front(), 3);
  EXPECT_EQ(counts.back(), 2);
  for (std::size_t s = 1; s + 1 < counts.size(); ++s) EXPECT_EQ(counts[s], 4) << "stage " << s;
  // Without MTP the same split is 63 units: the loss alone comes off the last stage.
  m.mtp_layers = 0;
  counts = virtual_stage_layer_counts(m, p);
  int total = 0;
  for (int c : counts) total += c;
  EXPECT_EQ(total, 61);
}

// The module's layer (an MoE layer for DeepSeek-V3) and its 2h -> h projection sit on the last stage. With the
// MTP split the last stage holds 2 layers + the module; without MTP (63 units) it holds 3 layers: the difference
// is the projection alone, 2h^2 / TP = 7168^2 parameters per GPU.
TEST(Mtp, ItsParametersSitOnTheLastStage) {
  ModelSpec m = deepseek();
  ParallelPlan p;
  p.tp = 2;
  p.pp = 16;
  p.ep = 64;
  p.dp = 32;
  p.embedding_in_split = p.loss_in_split = true;
  const double with = params_per_gpu(m, p, p.pp - 1);
  m.mtp_layers = 0;
  const double without = params_per_gpu(m, p, p.pp - 1);
  EXPECT_NEAR(with - without, 7168.0 * 7168.0, 1.0);
}

TEST(Mtp, ModulesMustBeFewerThanLayers) {
  try {
    (void)parse_model_spec(InputNode::parse("layers: 2\nhidden: 512\nheads: 4\nvocab: 100\nseq_len: 64\nmtp_layers: 2\n", "m.yaml"));
    FAIL() << "mtp_layers = layers was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("m.yaml:6"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("mtp_layers"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cs
