#include "sim/workload/pipeline_schedule.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <queue>
#include <stdexcept>
#include <string>

namespace cs {

bool layout_allows_ep_overlap(const ModelSpec& m, const ParallelPlan& p) noexcept {
  // Megatron-Core merges only with interleaving when there is a pipeline (check_plan rejects the rest): with
  // plain 1F1B the pair on one stage would wait for the pair on the next, and the stages would run in turn.
  // DualPipe pairs a forward and a backward of the two directions by design (arXiv 2412.19437 Sec. 3.2.1).
  return m.is_moe() && p.ep > 1 &&
         (p.pp == 1 || p.schedule == PipelineSchedule::interleaved || p.schedule == PipelineSchedule::dualpipe ||
          p.schedule == PipelineSchedule::dualpipe_v);
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

PipelineUnit input_unit(int micro_batch, int chunk) {
  return PipelineUnit{false, micro_batch, chunk, false, BackwardPart::input};
}
PipelineUnit weight_unit(int micro_batch, int chunk) {
  return PipelineUnit{false, micro_batch, chunk, false, BackwardPart::weight};
}

/// ZB-H1 on rank `stage` (Qi et al. 2024, Sec. 3.1 and Fig. 3): it warms up as 1F1B does (pp-1-stage forwards),
/// then runs F, B and, once more than `stage` weight gradients wait, the oldest W. Every rank then holds at most pp
/// micro-batches (1F1B's peak, on its first rank): the later ranks, which hold fewer under 1F1B, use the room to
/// defer their Ws, so the Bs the earlier ranks wait for come sooner. The drain runs each B with a W behind it and
/// ends with the deferred Ws. Bubble (pp-1)(F+B-W) against 1F1B's (pp-1)(F+B+W) (the paper's Table 1).
std::vector<PipelineUnit> zero_bubble_h1_order(int pp, int stage, int m) {
  const int warmup = std::min(m, pp - 1 - stage);
  const auto deferred = static_cast<std::size_t>(stage);  // Ws the rank may hold back
  std::vector<PipelineUnit> out;
  out.reserve(static_cast<std::size_t>(3 * m));
  std::deque<int> waiting;  // micro-batches whose W has not run, oldest first
  int next_f = 0, next_b = 0;
  const auto forward = [&] { out.push_back(PipelineUnit{true, next_f++, 0}); };
  const auto input = [&] {
    waiting.push_back(next_b);
    out.push_back(input_unit(next_b++, 0));
  };
  const auto weights_over = [&](std::size_t keep) {
    while (waiting.size() > keep) {
      out.push_back(weight_unit(waiting.front(), 0));
      waiting.pop_front();
    }
  };
  for (int k = 0; k < warmup; ++k) forward();
  while (next_f < m) {
    forward();
    input();
    weights_over(deferred);
  }
  while (next_b < m) {
    input();
    weights_over(deferred);
  }
  weights_over(0);
  return out;
}

/// DualPipeV on rank `stage` (deepseek-ai/DualPipe, dualpipev.py, DualPipeV.step: DualPipe cut in half, Sea AI Lab's
/// "cut-in-half"): chunk 0 is piece `stage` on the way down, chunk 1 piece 2pp-1-stage on the way back; the eight
/// steps as the reference runs them. Its zero-bubble Bs (enable_zb) leave their W in a first-in first-out queue that
/// its W slots empty; the other backwards compute both gradients. A forward-backward couple of the two chunks is
/// paired (run merged) when `merge` is set.
std::vector<PipelineUnit> dualpipe_v_order(int pp, int stage, int m, bool merge) {
  const int r = stage;
  const bool last = r == pp - 1;
  std::vector<PipelineUnit> out;
  out.reserve(static_cast<std::size_t>(6 * m));
  int next_f[2] = {0, 0}, next_b[2] = {0, 0};
  std::deque<std::pair<int, int>> queued;  // (micro-batch, chunk) of Bs whose W waits
  const auto fwd = [&](int c) { out.push_back(PipelineUnit{true, next_f[c]++, c}); };
  const auto bwd = [&](int c, bool zb) {
    if (zb) {
      queued.emplace_back(next_b[c], c);
      out.push_back(input_unit(next_b[c]++, c));
    } else {
      out.push_back(PipelineUnit{false, next_b[c]++, c});
    }
  };
  const auto weight = [&] {
    if (queued.empty()) return;  // the reference's W slot with nothing queued does nothing
    out.push_back(weight_unit(queued.front().first, queued.front().second));
    queued.pop_front();
  };
  const auto couple = [&](int cf, int cb) {  // _forward_backward_chunk: F of one chunk with a whole B of the other
    fwd(cf);
    out.back().paired = merge;
    bwd(cb, false);
  };
  for (int i = 0; i < (pp - r - 1) * 2; ++i) fwd(0);  // step 1: nF0
  for (int i = 0; i < r + 1; ++i) {                     // step 2: nF0F1
    fwd(0);
    fwd(1);
  }
  for (int i = 0; i < pp - r - 1; ++i) {  // step 3: nB1W1F1, zero bubble
    bwd(1, true);
    weight();
    fwd(1);
  }
  for (int i = 0; i < m - 2 * pp + r + 1; ++i) {  // step 4, the main step: nF0B1F1B0
    if (i == 0 && last) {  // the reference does not overlap these two, to shorten the bubble
      fwd(0);
      bwd(1, false);
    } else {
      couple(0, 1);
    }
    couple(1, 0);
  }
  for (int i = 0; i < pp - r - 1; ++i) {  // step 5: nB1F1B0
    bwd(1, false);
    couple(1, 0);
  }
  bool zb = false;
  for (int i = 0; i < r + 1; ++i) {  // step 6: nB1B0, the second half zero bubble
    if (i == (r + 1) / 2 && r % 2 == 1) zb = true;
    bwd(1, zb);
    if (i == (r + 1) / 2 && r % 2 == 0) zb = true;
    bwd(0, zb);
  }
  for (int i = 0; i < pp - r - 1; ++i) {  // step 7: nWB0, zero bubble
    weight();
    bwd(0, true);
  }
  for (int i = 0; i < r + 1; ++i) weight();  // step 8: nW
  while (!queued.empty()) weight();
  return out;
}

/// A greedy list schedule of every rank at once, built from the units' relative times `t` with free transfers, the
/// way the zero-bubble paper builds its automatic and V schedules from profiled costs (Qi et al. 2024, Sec. 3.2;
/// "Pipeline Parallelism with Controllable Memory", NeurIPS 2024, Sec. 4). `v`: a V (rank s holds pieces s and
/// 2pp-1-s) instead of one piece per rank. Each rank holds at most `cap` chunk activations (a forward adds one, its
/// W frees it), and a V's rank keeps `reserve` of them for the way back (a forward of its first piece leaves that
/// many free), so that the micro-batches it started can come back. At each free moment a rank runs, in this order
/// of preference: a ready B (oldest micro-batch, the later piece first), a ready F within the cap (the later piece
/// first), the oldest waiting W; it idles otherwise until another unit ends. The remaining Ws close the step.
/// O(units x pp) time.
std::vector<std::vector<PipelineUnit>> greedy_orders(int pp, int m, bool v, int cap, int reserve, const UnitTimes& t) {
  const int pieces = v ? 2 * pp : pp;
  const auto piece_of = [&](int rank, int chunk) { return chunk == 0 ? rank : pieces - 1 - rank; };
  const std::vector<int> chunks = v ? std::vector<int>{1, 0} : std::vector<int>{0};
  constexpr double kNever = std::numeric_limits<double>::infinity();
  // End times of F and B of (piece, micro-batch); infinite until placed.
  std::vector<double> f_end(static_cast<std::size_t>(pieces * m), kNever), b_end(f_end);
  const auto at = [&](int piece, int mb) { return static_cast<std::size_t>(piece * m + mb); };
  struct Rank {
    double time = 0;
    bool idle = false;  // found nothing to run at `time`: the other ranks free then decide first
    int held = 0;
    int next_f[2] = {0, 0}, next_b[2] = {0, 0};
    std::deque<std::pair<int, int>> waiting;  // (micro-batch, chunk)
    std::vector<PipelineUnit> order;
  };
  std::vector<Rank> ranks(static_cast<std::size_t>(pp));
  // Ends of the placed Fs and Bs, soonest first: the deciding rank's time never decreases, so passed ones go.
  std::priority_queue<double, std::vector<double>, std::greater<>> ends;
  const auto done = [&](const Rank& r) {
    for (const int c : chunks) {
      if (r.next_b[c] < m) return false;
    }
    return r.waiting.empty();
  };
  for (;;) {
    // The free rank with the earliest time decides next (ties: one that has not yet found itself idle then, the
    // lower rank): every unit that ends by then on another rank has been placed already.
    int s = -1;
    for (int i = 0; i < pp; ++i) {
      const Rank& r = ranks[static_cast<std::size_t>(i)];
      if (done(r)) continue;
      const Rank* best = s < 0 ? nullptr : &ranks[static_cast<std::size_t>(s)];
      if (!best || r.time < best->time || (r.time == best->time && best->idle && !r.idle)) s = i;
    }
    if (s < 0) break;
    Rank& r = ranks[static_cast<std::size_t>(s)];
    const double now = r.time;
    const bool was_idle = r.idle;
    r.idle = false;
    const auto f_ready = [&](int c) {
      const int mb = r.next_f[c];
      if (mb >= m || r.held + 1 + (c == 0 && v ? reserve : 0) > cap) return false;
      const int piece = piece_of(s, c);
      return piece == 0 || f_end[at(piece - 1, mb)] <= now;
    };
    const auto b_ready = [&](int c) {
      const int mb = r.next_b[c];
      if (mb >= m || mb >= r.next_f[c]) return false;
      const int piece = piece_of(s, c);
      return piece == pieces - 1 ? f_end[at(piece, mb)] <= now : b_end[at(piece + 1, mb)] <= now;
    };
    int pick_b = -1, pick_f = -1;
    for (const int c : chunks) {
      if (b_ready(c) && (pick_b < 0 || r.next_b[c] < r.next_b[pick_b])) pick_b = c;
      if (f_ready(c) && pick_f < 0) pick_f = c;
    }
    if (pick_b >= 0) {
      const int mb = r.next_b[pick_b]++;
      r.time = now + t.input_grad;
      b_end[at(piece_of(s, pick_b), mb)] = r.time;
      ends.push(r.time);
      r.waiting.emplace_back(mb, pick_b);
      r.order.push_back(input_unit(mb, pick_b));
    } else if (pick_f >= 0) {
      const int mb = r.next_f[pick_f]++;
      r.time = now + t.forward;
      f_end[at(piece_of(s, pick_f), mb)] = r.time;
      ends.push(r.time);
      ++r.held;
      r.order.push_back(PipelineUnit{true, mb, pick_f});
    } else if (!r.waiting.empty()) {
      r.order.push_back(weight_unit(r.waiting.front().first, r.waiting.front().second));
      r.waiting.pop_front();
      --r.held;
      r.time = now + t.weight_grad;
    } else if (!was_idle) {
      r.idle = true;  // let the other ranks free now decide, then look again
    } else {
      // Idle until the next F or B ends, or another rank is free to place one.
      while (!ends.empty() && ends.top() <= now) ends.pop();
      double next = ends.empty() ? kNever : ends.top();
      for (const Rank& o : ranks) {
        if (!done(o) && o.time > now) next = std::min(next, o.time);
      }
      if (next == kNever) throw std::logic_error("greedy pipeline schedule: rank " + std::to_string(s) + " can never proceed");
      r.time = next;
    }
  }
  std::vector<std::vector<PipelineUnit>> out;
  for (Rank& r : ranks) out.push_back(std::move(r.order));
  return out;
}

}  // namespace

std::vector<std::vector<PipelineUnit>> pipeline_orders(const ParallelPlan& p, int m, bool merge_forward_backward,
                                                       const UnitTimes& times) {
  // ZB-H2: at most 2pp-1 micro-batches on a rank (Qi et al. 2024, Table 1), built greedily as the paper's tail
  // ("a parallelogram") needs the Bs of the drain to run back to back. ZB-V: 2pp chunk activations, 1F1B's pp
  // micro-batches of a whole stage, one kept for the way back (none let a rank fill up with first-piece forwards
  // and stall; two left a larger bubble on zero_bubble_test.cpp's cases).
  if (p.schedule == PipelineSchedule::zb_h2) return greedy_orders(p.pp, m, false, 2 * p.pp - 1, 0, times);
  if (p.schedule == PipelineSchedule::zb_v) return greedy_orders(p.pp, m, true, 2 * p.pp, 1, times);
  std::vector<std::vector<PipelineUnit>> out;
  for (int s = 0; s < p.pp; ++s) out.push_back(pipeline_order(p, s, m, merge_forward_backward, times));
  return out;
}

HeldActivations held_activations_at_peak(const std::vector<PipelineUnit>& order, const std::vector<double>& chunk_bytes) {
  HeldActivations now, peak;
  for (const PipelineUnit& u : order) {
    const double bytes = chunk_bytes[static_cast<std::size_t>(u.chunk)];
    if (u.forward) now.total += bytes;
    if (!u.forward && u.part == BackwardPart::input) now.awaiting_weight_grad += bytes;
    if (u.weight_grad()) {
      now.total -= bytes;
      if (u.part == BackwardPart::weight) now.awaiting_weight_grad -= bytes;
    }
    if (now.total > peak.total) peak = now;
  }
  return peak;
}

double held_activations_peak(const std::vector<PipelineUnit>& order, const std::vector<double>& chunk_bytes) {
  return held_activations_at_peak(order, chunk_bytes).total;
}

int weight_versions(const ParallelPlan& p, int stage) noexcept {
  if (p.schedule == PipelineSchedule::pipedream_2bw) return 2;
  if (p.schedule == PipelineSchedule::pipedream_async) return p.pp - stage;
  return 1;
}

int weight_delay(const ParallelPlan& p, int stage) noexcept {
  if (p.schedule == PipelineSchedule::pipedream_2bw) return 1;
  if (p.schedule == PipelineSchedule::pipedream_async) return p.pp - stage - 1;
  return 0;
}

std::vector<PipelineUnit> pipeline_order(const ParallelPlan& p, int stage, int m, bool merge_forward_backward,
                                         const UnitTimes& times) {
  if (p.schedule == PipelineSchedule::dualpipe) return dualpipe_order(p.pp, stage, m, merge_forward_backward);
  if (p.schedule == PipelineSchedule::dualpipe_v) return dualpipe_v_order(p.pp, stage, m, merge_forward_backward);
  const auto rank = static_cast<std::size_t>(stage);
  if (p.schedule == PipelineSchedule::zb_h1) return zero_bubble_h1_order(p.pp, stage, m);
  if (p.schedule == PipelineSchedule::zb_h2 || p.schedule == PipelineSchedule::zb_v) {
    return pipeline_orders(p, m, merge_forward_backward, times)[rank];
  }
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
