#include "sim/workload/pipeline_schedule.hpp"

#include <algorithm>

namespace cs {

bool layout_allows_ep_overlap(const ModelSpec& m, const ParallelPlan& p) noexcept {
  // Megatron-Core merges only with interleaving when there is a pipeline (check_plan rejects the rest): with
  // plain 1F1B the pair on one stage would wait for the pair on the next, and the stages would run in turn.
  return m.is_moe() && p.ep > 1 && (p.pp == 1 || p.schedule == PipelineSchedule::interleaved);
}

bool merges_forward_backward(const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t) noexcept {
  return t.overlap.ep_comm && layout_allows_ep_overlap(m, p);
}

std::vector<PipelineUnit> pipeline_order(const ParallelPlan& p, int stage, int m, bool merge_forward_backward) {
  std::vector<PipelineUnit> out;
  const int v = p.schedule == PipelineSchedule::interleaved ? p.virtual_stages : 1;
  const int total = m * v;
  out.reserve(static_cast<std::size_t>(2 * total));
  // k-th forward (or backward) virtual micro-batch -> (micro-batch, chunk), as in Megatron-LM's
  // forward_backward_pipelining_with_interleaving: groups of pp micro-batches sweep the chunks in order.
  auto unit = [&](int k, bool fwd) {
    const int group = k / (p.pp * v);
    const int in_group = k % (p.pp * v);
    const int chunk = in_group / p.pp;
    return PipelineUnit{fwd, group * p.pp + in_group % p.pp, fwd ? chunk : v - 1 - chunk};
  };
  if (p.schedule == PipelineSchedule::gpipe) {
    for (int k = 0; k < total; ++k) out.push_back(unit(k, true));
    for (int k = 0; k < total; ++k) out.push_back(unit(k, false));
    return out;
  }
  const int extra = merge_forward_backward ? 1 : 0;
  const int warmup = std::min(total, (v == 1 ? p.pp - stage - 1 : (p.pp - stage - 1) * 2 + (v - 1) * p.pp) + extra);
  for (int k = 0; k < warmup; ++k) out.push_back(unit(k, true));
  for (int i = 0; i < total - warmup; ++i) {
    out.push_back(unit(warmup + i, true));
    out.back().paired = merge_forward_backward;
    out.push_back(unit(i, false));
  }
  for (int k = total - warmup; k < total; ++k) out.push_back(unit(k, false));
  return out;
}

}  // namespace cs
