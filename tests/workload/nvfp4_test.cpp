// NVFP4 (DType::fp4): Transformer Engine's NVFP4BlockScaling recipe as the simulator prices it. Every linear
// layer's GEMM runs in fp4; each input is cast to 4-bit values with a 1-byte scale per 16 elements (0.5625
// bytes), a row-wise and a column-wise copy, after a pass for the per-tensor amax; attention, the router and
// the output layer stay in 16-bit; saved GEMM inputs and gathered fp4 parameters take 0.5625 bytes.

#include <gtest/gtest.h>

#include "find_op.hpp"
#include "sim/workload/layer_ops.hpp"
#include "sim/workload/memory_model.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace cs {
namespace {

ModelSpec small_dense() {
  ModelSpec m;
  m.layers = 2;
  m.hidden = 1024;
  m.heads = 8;
  m.kv_heads = 8;
  m.ffn_hidden = 4096;
  m.vocab = 1000;
  m.seq_len = 512;
  return m;
}

TrainingConfig with(DType precision) {
  TrainingConfig t;
  t.seq_len = 512;
  t.precision = precision;
  return t;
}

TEST(Nvfp4, StoresFourBitsAndAScalePerSixteen) {
  EXPECT_DOUBLE_EQ(bytes_per_element(DType::fp4), 0.5625);
  EXPECT_TRUE(is_quantized(DType::fp4));
  EXPECT_TRUE(is_quantized(DType::fp8));
  EXPECT_FALSE(is_quantized(DType::bf16));
  DType d{};
  ASSERT_TRUE(parse_dtype("fp4", d));
  EXPECT_EQ(d, DType::fp4);
}

TEST(Nvfp4, LinearGemmsRunInFp4AndCastWithAnAmaxPass) {
  const ModelSpec m = small_dense();
  ParallelPlan p;
  const auto ops = forward_ops(LayerPart::dense_layer, m, p, with(DType::fp4));
  EXPECT_EQ(find_op(ops, "QKV projection").gemm.dtype, DType::fp4);
  EXPECT_EQ(find_op(ops, "FFN up").gemm.dtype, DType::fp4);
  EXPECT_EQ(find_op(ops, "FFN down").gemm.dtype, DType::fp4);
  // The QKV input cast rides on the norm (LayerNormLinear): no 16-bit read; two 0.5625-byte copies and the
  // 2-byte amax read, for 512 tokens x 1,024.
  const Op& qkv_cast = find_op(ops, "QKV projection fp4 cast");
  EXPECT_DOUBLE_EQ(qkv_cast.bytes.value(), 512.0 * 1024 * (2 * 0.5625 + 2.0));
  // Against fp8 current scaling (one byte per copy, the same amax pass) the cast writes less.
  TrainingConfig cs = with(DType::fp8);
  cs.fp8_recipe = Fp8Recipe::current;
  EXPECT_LT(qkv_cast.bytes.value(), find_op(forward_ops(LayerPart::dense_layer, m, p, cs), "QKV projection fp8 cast").bytes.value());
  // The output layer stays in 16-bit, as in fp8 recipes.
  const auto head = forward_ops(LayerPart::output, m, p, with(DType::fp4));
  for (const Op& op : head) {
    if (op.kind == OpKind::gemm) {
      EXPECT_EQ(op.gemm.dtype, DType::bf16) << op.name;
    }
  }
}

TEST(Nvfp4, SavedInputsAndGatheredParametersTakeFp4Bytes) {
  const ModelSpec m = small_dense();
  ParallelPlan p;
  const double fp8 = activation_bytes_per_layer(m, p, with(DType::fp8), LayerKind::dense).value();
  const double fp4 = activation_bytes_per_layer(m, p, with(DType::fp4), LayerKind::dense).value();
  const double bf16 = activation_bytes_per_layer(m, p, with(DType::bf16), LayerKind::dense).value();
  EXPECT_LT(fp4, fp8);
  EXPECT_LT(fp8, bf16);
  TrainingConfig t = with(DType::fp4);
  EXPECT_DOUBLE_EQ(gathered_param_bytes(t), 2.0);  // 16-bit weights unless fp4 parameters are gathered
  t.fp8_params = true;
  EXPECT_DOUBLE_EQ(gathered_param_bytes(t), 0.5625);
}

}  // namespace
}  // namespace cs
