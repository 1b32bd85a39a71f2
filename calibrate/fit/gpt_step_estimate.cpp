#include "calibrate/fit/gpt_step_estimate.hpp"

namespace cs::fit {

StepEstimate estimate_gpt_step(const ComputeCostModel& model, const GptConfig& c, const LinearCost* adam) {
  StepEstimate e;
  const std::int64_t t = c.batch * c.seq, h = c.hidden, v = c.vocab;
  const double th = static_cast<double>(t * h), bf16 = 2.0;
  // A linear layer y[t, out] = x[t, in] W[out, in]^T: forward, input gradient, weight gradient.
  const auto linear = [&](std::int64_t tokens, std::int64_t out, std::int64_t in) {
    e.gemm += model.gemm({tokens, out, in, DType::bf16, 1});
    e.gemm += model.gemm({tokens, in, out, DType::bf16, 1});
    e.gemm += model.gemm({out, in, tokens, DType::bf16, 1});
  };
  // A bandwidth-bound kernel moving `bytes` forward and twice that backward.
  const auto pointwise = [&](double bytes) {
    e.memory += model.memory_bound(Bytes{bytes});
    e.memory += model.memory_bound(Bytes{2.0 * bytes});
  };
  AttentionShape a;
  a.batch = c.batch;
  a.heads = a.kv_heads = c.heads;
  a.seq_q = a.seq_kv = c.seq;
  a.head_dim = h / c.heads;
  a.dtype = DType::bf16;
  for (std::int64_t l = 0; l < c.layers; ++l) {
    pointwise(2 * th * bf16);      // LayerNorm 1: read x, write y
    linear(t, 3 * h, h);           // QKV
    e.memory += model.memory_bound(Bytes{2 * 3 * th * bf16});  // backward: dq, dk, dv stacked into one dqkv
    a.backward = false;
    e.attention += model.attention(a);
    a.backward = true;
    e.attention += model.attention(a);
    pointwise(2 * th * bf16);      // attention output (b, heads, s, d) -> (b, s, h) copy
    linear(t, h, h);               // output projection
    pointwise(3 * th * bf16);      // residual add
    pointwise(2 * th * bf16);      // LayerNorm 2
    linear(t, 4 * h, h);           // MLP up
    pointwise(2 * 4 * th * bf16);  // GELU
    linear(t, h, 4 * h);           // MLP down
    pointwise(3 * th * bf16);      // residual add
  }
  pointwise(3 * th * bf16);        // token + position embedding gather and add
  pointwise(2 * th * bf16);        // final LayerNorm
  linear(t, v, h);                 // LM head
  const double logits = static_cast<double>(t * v) * bf16;
  e.memory += model.memory_bound(Bytes{3 * logits});  // cross-entropy forward: read, write log-softmax, read
  e.memory += model.memory_bound(Bytes{logits});      // cross-entropy backward: zero-filled nll gradient
  e.memory += model.memory_bound(Bytes{3 * logits});  // log-softmax backward: read both, write the gradient
  e.params = v * h + c.seq * h + c.layers * (12 * h * h + 4 * h) + 2 * h + v * h;
  // Fused AdamW over bf16 parameters, gradients and states: read p, g, m, v; write p, m, v.
  const Bytes optimizer_bytes{static_cast<double>(e.params) * 14.0};
  e.optimizer = adam ? adam->time(optimizer_bytes) : model.memory_bound(optimizer_bytes);
  return e;
}

}  // namespace cs::fit
