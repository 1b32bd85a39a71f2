#include "sim/workload/pipeline_schedule.hpp"

#include <algorithm>

namespace cs {

bool layout_allows_ep_overlap(const ModelSpec& m, const ParallelPlan& p) noexcept {
  // Megatron-Core merges only with interleaving when there is a pipeline (check_plan rejects the rest): with
  // plain 1F1B the pair on one stage would wait for the pair on the next, and the stages would run in turn.
  // DualPipe pairs a forward and a backward of the two directions by design (arXiv 2412.19437 Sec. 3.2.1).
  return m.is_moe() && p.ep > 1 &&
         (p.pp == 1 || p.schedule == PipelineSchedule::interleaved || p.schedule == PipelineSchedule::dualpipe);
}

bool merges_forward_backward(const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t) noexcept {
  return t.overlap.ep_comm && layout_allows_ep_overlap(m, p);
}

namespace {

/// DualPipe's order on one rank (deepseek-ai/DualPipe, dualpipe.py, DualPipe.step), without its zero-bubble split
/// of the backward into input and weight gradients: each backward computes both, and the weight-gradient-only
/// slots vanish. On the first half of the ranks phase 0 is chunk 0 (the direction entering at rank 0), on the
/// second half chunk 1 (the one entering at rank pp-1). Forwards and backwards of each chunk take its
/// micro-batches in order.
std::vector<PipelineUnit> dualpipe_order(int pp, int stage, int micro_batches, bool merge) {
  const int half_ranks = pp / 2, r = std::min(stage, pp - 1 - stage), n = micro_batches / 2;
  const bool second_half = stage >= half_ranks, middle = r == half_ranks - 1;
  std::vector<PipelineUnit> out;
  out.reserve(static_cast<std::size_t>(4 * n));
  int next_f[2] = {0, 0}, next_b[2] = {0, 0};  // per chunk
  auto chunk_of = [&](int phase) { return second_half ? 1 - phase : phase; };
  auto fwd = [&](int phase) {
    const int c = chunk_of(phase);
    out.push_back(PipelineUnit{true, next_f[c]++, c});
  };
  auto bwd = [&](int phase) {
    const int c = chunk_of(phase);
    out.push_back(PipelineUnit{false, next_b[c]++, c});
  };
  auto pair = [&](int phase_f, int phase_b) {  // a forward and a backward of the other direction, overlapped
    fwd(phase_f);
    out.back().paired = merge;
    bwd(phase_b);
  };
  for (int i = 0; i < (half_ranks - r - 1) * 2; ++i) fwd(0);  // step 1: nF0
  for (int i = 0; i < r + 1; ++i) {                           // step 2: nF0F1
    fwd(0);
    fwd(1);
  }
  for (int i = 0; i < half_ranks - r - 1; ++i) {  // step 3: nB1W1F1 (the W is part of the B here)
    bwd(1);
    fwd(1);
  }
  for (int i = 0; i < n - pp + r + 1; ++i) {  // step 4, the main step: nF0B1F1B0
    if (i == 0 && middle) {  // DualPipe does not overlap these two, to shorten the bubble
      fwd(0);
      bwd(1);
    } else {
      pair(0, 1);
    }
    pair(1, 0);
  }
  for (int i = 0; i < half_ranks - r - 1; ++i) {  // step 5: nB1F1B0
    bwd(1);
    pair(1, 0);
  }
  for (int i = 0; i < r + 1; ++i) {  // step 6: nB1B0
    bwd(1);
    bwd(0);
  }
  for (int i = 0; i < half_ranks - r - 1; ++i) bwd(0);  // step 7: nWB0 (steps 7-8's W slots are in the B)
  return out;
}

}  // namespace

std::vector<PipelineUnit> pipeline_order(const ParallelPlan& p, int stage, int m, bool merge_forward_backward) {
  if (p.schedule == PipelineSchedule::dualpipe) return dualpipe_order(p.pp, stage, m, merge_forward_backward);
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
