// The small MoE model the replay tests run end to end (merged_units_test, dualpipe_test): 8 experts of FFN
// 1,024, top-2, hidden 1,024, 8 heads, 2,048-token sequences, and one step of it replayed with FixedCostModel's
// kernel times over a 25 GB/s ring fabric (10 us per hop).
#pragma once

#include "fixed_cost_model.hpp"
#include "ring_fabric.hpp"
#include "sim/replay/step_replay.hpp"

namespace cs::testing {

inline ModelSpec tiny_moe(int layers) {
  ModelSpec m;
  m.name = "tiny moe";
  m.layers = layers;
  m.hidden = 1024;
  m.heads = 8;
  m.kv_heads = 8;
  m.ffn_hidden = 4096;
  m.vocab = 1000;
  m.seq_len = 2048;
  m.experts = 8;
  m.top_k = 2;
  m.expert_ffn_hidden = 1024;
  return m;
}

inline StepResult replay_on_ring(const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t) {
  FixedCostModel compute;
  EventEngine engine;
  RingFabric fabric(engine, Bandwidth{25e9}, Time::us(10));
  const UnitCosts costs(m, p, t, compute, [&](const CollectiveRequest& r) { return fabric.duration(r); }, 132);
  StepReplay replay(m, p, t, costs, fabric, engine);
  return replay.run();
}

}  // namespace cs::testing
