#include "sim/workload/pipeline_schedule.hpp"

#include <algorithm>

namespace cs {

std::vector<PipelineUnit> pipeline_order(const ParallelPlan& p, int stage, int m) {
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
  const int warmup = std::min(total, v == 1 ? p.pp - stage - 1 : (p.pp - stage - 1) * 2 + (v - 1) * p.pp);
  for (int k = 0; k < warmup; ++k) out.push_back(unit(k, true));
  for (int i = 0; i < total - warmup; ++i) {
    out.push_back(unit(warmup + i, true));
    out.push_back(unit(i, false));
  }
  for (int k = total - warmup; k < total; ++k) out.push_back(unit(k, false));
  return out;
}

}  // namespace cs
