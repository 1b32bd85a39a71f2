// The tiny GPT the replay tests check by hand: 2 layers, h = 256, 4 heads, FFN 1,024, vocabulary 1,000,
// 128-token sequences. With FixedCostModel's kernel times its micro-batch forward is 14.3 ms and its backward
// 27.3 ms (step_replay_test.cpp spells the sum out).
#pragma once

#include "fixed_cost_model.hpp"
#include "sim/replay/unit_costs.hpp"

namespace cs::testing {

inline ModelSpec tiny_gpt() {
  ModelSpec m;
  m.name = "tiny";
  m.layers = 2;
  m.hidden = 256;
  m.heads = 4;
  m.kv_heads = 4;
  m.ffn_hidden = 1024;
  m.vocab = 1000;
  m.seq_len = 128;
  return m;
}

/// The tiny GPT's training on 128-token sequences (the rest as TrainingConfig's defaults).
inline TrainingConfig tiny_training() {
  TrainingConfig t;
  t.seq_len = 128;
  return t;
}

/// The tiny GPT's units on one GPU, with FixedCostModel's kernel times and free collectives; tests change the
/// model, plan or training and rebuild the units.
struct TinyUnits {
  ModelSpec model = tiny_gpt();
  ParallelPlan plan;
  TrainingConfig train = tiny_training();
  FixedCostModel compute;
  [[nodiscard]] UnitCosts costs() const {
    return UnitCosts(model, plan, train, compute, [](const CollectiveRequest&) { return Time::zero(); }, 132);
  }
};

}  // namespace cs::testing
