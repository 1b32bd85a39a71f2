// The space of training plans for one model on one cluster, enumerated exhaustively with pruning
// (docs/sweeps.md, "Plan search"). A candidate fixes everything the planner chooses:
//   tp    divides the GPUs of a node, the heads and the FFN width (kv_heads divides tp or tp divides it)
//   cp    divides the remaining GPUs; the sequence splits over cp ranks in halves
//   pp    divides the remaining GPUs and the layers
//   dp    the rest: gpus / (tp * cp * pp)
//   vpp   virtual stages per rank, dividing layers / pp (> 1 only with pp > 1: interleaved 1F1B, which also
//         needs the micro-batches per step divisible by pp)
//   schedule  1F1B (interleaved with vpp > 1); with vpp 1 also DualPipe (even pp, an even number of at least
//         2 pp micro-batches) and the zero-bubble zb-h1, zb-h2 and zb-v (at least 2 pp micro-batches)
//   ep    (MoE only) divides the experts and dp * cp
//   mb    micro-batch: divides global_batch / dp
//   recompute none | full, and selective with the unfused attention kernel (with flash attention selective
//         recompute reruns and frees nothing: the same plan as none);  zero 0..3 (0 only when dp * cp == 1)
//   overlap: grad_reduce on/off when dp * cp > 1; param_gather on/off with ZeRO >= 1; tp_comm on/off with tp > 1
//   (an overlap flag with nothing to overlap is not a different plan). Sequence parallelism is on with tp > 1.
// Candidates whose most loaded GPU does not fit the device memory (workload's memory model) are pruned.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/workload/memory_model.hpp"

namespace cs {

struct PlanCandidate {
  ParallelPlan plan;
  int micro_batch = 1;
  Recompute recompute = Recompute::none;
  Overlap overlap;
  Bytes memory;  ///< peak per GPU (memory model)
};

struct PlanSpaceCounts {
  std::int64_t layouts = 0;          ///< (tp, cp, pp, dp) with tp*cp*pp*dp = GPUs that divide the model
  std::int64_t enumerated = 0;       ///< candidates that divide evenly (memory not yet checked)
  std::int64_t out_of_memory = 0;    ///< of those, pruned by the memory model
  std::int64_t valid = 0;            ///< what the screen ranks
};

/// Calls `visit` for every candidate that divides evenly and fits in memory; counts everything in `counts`.
void enumerate_plans(const Scenario& sc, PlanSpaceCounts& counts, const std::function<void(const PlanCandidate&)>& visit);

/// The scenario's training settings with the candidate's micro-batch, recompute and overlap written in.
void apply_candidate(const PlanCandidate& c, TrainingConfig& t);
/// "tp8 cp1 pp8 vpp4 dp16 mb1 selective zero1 overlap grad+param"
[[nodiscard]] std::string describe(const PlanCandidate& c);
/// The candidate as a scenario's `parallelism:` keys plus the training keys it sets.
[[nodiscard]] nlohmann::ordered_json candidate_json(const PlanCandidate& c);

}  // namespace cs
