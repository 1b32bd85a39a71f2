#include "sim/replay/step_replay.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>

#include "sim/workload/pipeline_schedule.hpp"

namespace cs {

/// One item of a stage's data-parallel stream: optional bandwidth-bound work (gradient compression) and then
/// a collective.
struct StepReplay::DpWork {
  Time compute;
  CollectiveRequest request;
};

struct StepReplay::Stage {
  std::vector<PipelineUnit> order;
  std::size_t next = 0;
  bool busy = false;
  int sends_pending = 0;            // sends the compute stream waits for (blocking pipeline sends)
  std::vector<char> ready;          // per (direction, micro-batch, chunk): its input has arrived
  std::vector<int> backward_done;   // per chunk: micro-batches whose weight gradient is complete (whole backward or W)
  std::vector<char> gathered;       // ZeRO-3: per unit of `order`, its chunk's parameters are gathered
  std::vector<char> gather_issued;
  std::deque<DpWork> dp_queue;
  bool dp_busy = false;
  int buckets_pending = 0;          // released but not yet reduced
  int buckets_unreleased = 0;       // scheduled for release later in a running unit
  bool finishing = false;
  Time last_unit_end;
  // The eager host (TrainingConfig::host_launch_cost) where it carries on from unit to unit: when it issued the
  // last launch of the stage's previous unit, and the GPU's wait for it in the unit now running.
  Time host_free;
  Time unit_host_wait;
  Time optimizer_start, finish;
  Time first_start = Time::max();   // when the stage's first unit started
  Time inline_optimizer;            // PipeDream's optimizer steps run after each backward but the last
  bool optimizing = false;          // the compute stream runs such a step: it is released when that ends
  StepBreakdown sums;
  Flops model_flops, hardware_flops;
};

StepReplay::StepReplay(const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t, const UnitCosts& costs,
                       CollectiveModel& fabric, EventEngine& engine)
    : model_(m),
      plan_(p),
      train_(t),
      costs_(costs),
      fabric_(fabric),
      engine_(engine),
      layout_(p),
      micro_batches_(static_cast<int>(t.micro_batches(p))),
      virtual_(p.chunks()),
      chunk_micro_batches_(p.schedule == PipelineSchedule::dualpipe ? micro_batches_ / 2 : micro_batches_) {
  stages_.resize(static_cast<std::size_t>(p.pp));
  std::vector<std::vector<PipelineUnit>> orders =
      pipeline_orders(p, micro_batches_, merges_forward_backward(m, p, t), costs.unit_times());
  for (int s = 0; s < p.pp; ++s) {
    Stage& st = stages_[static_cast<std::size_t>(s)];
    st.order = std::move(orders[static_cast<std::size_t>(s)]);
    st.ready.assign(static_cast<std::size_t>(2 * micro_batches_ * virtual_), 0);
    st.backward_done.assign(static_cast<std::size_t>(virtual_), 0);
    st.gathered.assign(st.order.size(), zero3() ? 0 : 1);
    st.gather_issued.assign(st.order.size(), zero3() ? 0 : 1);
    dp_groups_.emplace_back(std::make_shared<const GroupList::Groups>(layout_.dp_groups(s)));
  }
  // The first piece's forwards read the data loader: their inputs are ready from the start (under DualPipe on
  // both end ranks, each for its direction's micro-batches).
  for (int c = 0; c < (p.schedule == PipelineSchedule::dualpipe ? 2 : 1); ++c) {
    const auto [stage, chunk] = p.place(0, c);
    for (int mb = 0; mb < chunk_micro_batches_; ++mb) stages_[static_cast<std::size_t>(stage)].ready[slot(true, mb, chunk)] = 1;
  }
}

StepReplay::~StepReplay() = default;

StepResult steady_state_step(const StepResult& one, const StepResult& two, Time optimizer) {
  StepResult r = one;
  r.step_time = two.step_time - one.step_time + optimizer;
  for (StepBreakdown* b : {&r.breakdown, &r.busiest}) {
    b->dp_comm = Time::zero();
    b->param_gather = Time::zero();
    b->optimizer = optimizer > Time::zero() ? optimizer : b->optimizer;
    const Time busy = b->compute + b->tp_comm + b->cp_comm + b->ep_comm + b->host_wait + b->optimizer;
    b->pipeline_wait = std::max(Time::zero(), r.step_time - busy);
  }
  return r;
}

const GroupList& StepReplay::p2p_pairs(int from, int to) {
  auto it = p2p_pairs_.find({from, to});
  if (it == p2p_pairs_.end()) {
    auto pairs = std::make_shared<const GroupList::Groups>(layout_.p2p_pairs(from, to));
    it = p2p_pairs_.emplace(std::pair{from, to}, GroupList(std::move(pairs))).first;
  }
  return it->second;
}

std::size_t StepReplay::slot(bool forward, int mb, int chunk) const noexcept {
  return static_cast<std::size_t>(((forward ? 0 : 1) * virtual_ + chunk) * micro_batches_ + mb);
}

void StepReplay::emit(int s, const char* stream, std::string name, Time start, Time end) {
  if (observers_.empty()) return;
  const Span span{s, layout_.rank(0, 0, 0, s), stream, std::move(name), start, end};
  for (auto* o : observers_) o->on_span(span);
}

StepResult StepReplay::run() {
  const Time t0 = engine_.now();
  step_start_ = t0;
  for (Stage& st : stages_) st.host_free = t0;  // host and GPU start the step together
  const std::uint64_t e0 = engine_.executed();
  for (int s = 0; s < plan_.pp; ++s) try_start(s);
  engine_.run();
  StepResult r;
  const bool own_span = validates_after_update(plan_.schedule);
  for (int s = 0; s < plan_.pp; ++s) {
    const Stage& st = stages_[static_cast<std::size_t>(s)];
    if (st.next != st.order.size() || !st.finishing) {
      throw std::logic_error("replay deadlock: stage " + std::to_string(s) + " stopped at unit " +
                             std::to_string(st.next) + " of " + std::to_string(st.order.size()));
    }
    // Post-update validation: the steady-state step is the longest stage's own span, from its first unit to its
    // optimizer step (a stage does not wait for the others to finish before it starts the next step). The global
    // checks' scalar reductions it moves after the update are not priced (microseconds, beside the step).
    const Time span = st.finish - (own_span ? st.first_start : t0);
    if (span >= r.step_time) {
      r.step_time = span;
      r.critical_stage = s;
    }
    // Every GPU of a stage does the representative's work: scale by the TP x CP x DP ranks per stage.
    const double ranks = static_cast<double>(plan_.tp) * plan_.cp * plan_.dp;
    r.model_flops += st.model_flops * ranks;
    r.hardware_flops += st.hardware_flops * ranks;
  }
  r.breakdown = stages_[static_cast<std::size_t>(r.critical_stage)].sums;
  Time most_busy = Time::zero();
  for (int s = 0; s < plan_.pp; ++s) {
    const Stage& st = stages_[static_cast<std::size_t>(s)];
    if (const Time busy = st.finish - (own_span ? st.first_start : t0) - st.sums.pipeline_wait; s == 0 || busy > most_busy) {
      most_busy = busy;
      r.busiest_stage = s;
    }
  }
  const Stage& busiest = stages_[static_cast<std::size_t>(r.busiest_stage)];
  r.busiest = busiest.sums;
  r.busiest.pipeline_wait += r.step_time - (busiest.finish - (own_span ? busiest.first_start : t0));
  r.events = engine_.executed() - e0;
  return r;
}

bool StepReplay::zero3() const noexcept { return plan_.zero_stage >= 3 && plan_.dp * plan_.cp > 1; }

void StepReplay::gather_params(int s, std::size_t index) {
  Stage& st = stages_[static_cast<std::size_t>(s)];
  if (index >= st.order.size() || st.gather_issued[index]) return;
  st.gather_issued[index] = 1;
  // ZeRO-3 / FSDP: every rank gathers the working parameters (16-bit, fp8 or fp32) of the chunk it is about to run.
  const int chunk = st.order[index].chunk;
  CollectiveRequest req{CollectiveKind::all_gather, Bytes{costs_.chunk_params(s, chunk) * gathered_param_bytes(train_)},
                        dp_groups_[static_cast<std::size_t>(s)],
                        "ZeRO-3 param all-gather"};
  const Time start = engine_.now();
  fabric_.start(req, [this, s, index, start] {
    emit(s, "param gather", "param all-gather", start, engine_.now());
    stages_[static_cast<std::size_t>(s)].gathered[index] = 1;
    try_start(s);
  });
}

void StepReplay::try_start(int s) {
  Stage& st = stages_[static_cast<std::size_t>(s)];
  if (st.busy || st.next >= st.order.size()) return;
  const PipelineUnit u = st.order[st.next];
  // A W follows its own B on this rank (pipeline_order), so it is ready whenever its turn comes.
  if (u.part != BackwardPart::weight && !st.ready[slot(u.forward, u.micro_batch, u.chunk)]) return;
  if (!st.gathered[st.next]) {
    gather_params(s, st.next);  // not prefetched: the unit waits for its parameters
    return;
  }
  // Merged forward-backward (EP overlap): a paired forward starts with the backward after it, once both
  // inputs have arrived and both chunks' parameters are at hand.
  const bool pair = u.paired && st.next + 1 < st.order.size();
  if (pair) {
    const PipelineUnit& w = st.order[st.next + 1];
    if (!st.ready[slot(w.forward, w.micro_batch, w.chunk)]) return;
    if (!st.gathered[st.next + 1]) {
      gather_params(s, st.next + 1);
      return;
    }
  }
  const std::size_t count = pair ? 2 : 1;
  st.busy = true;
  // With overlap, the next unit's parameters are fetched while this one computes (FSDP prefetch); both units'
  // of a merged pair.
  if (train_.overlap.param_gather) {
    const std::size_t ahead = st.next + count;
    gather_params(s, ahead);
    if (ahead < st.order.size() && st.order[ahead].paired) gather_params(s, ahead + 1);
  }
  const UnitCost& c = costs_.of(u, s);
  const Time start = engine_.now();
  st.first_start = std::min(st.first_start, start);
  Time dur = c.total();
  if (pair) {
    const PipelineUnit& w = st.order[st.next + 1];
    dur = costs_.merged(s, u.chunk, w.chunk) + costs_.merged_host_wait(s, u.chunk, w.chunk);
    st.host_free = start + dur;
  } else if (host_carries_on()) {
    // The host went on to this unit's launches as soon as it had issued the previous unit's, while the GPU still
    // ran that unit's tail: its lead covers the launch-bound part before the unit's first synchronisation.
    const Time lead = std::max(Time::zero(), start - st.host_free);
    st.unit_host_wait = c.issue.wait(lead);
    dur = c.total() - c.host_wait + st.unit_host_wait;
    st.host_free = start + c.issue.host_span(lead);
  } else {
    st.unit_host_wait = c.host_wait;
  }
  // The last backward of a chunk produces its final gradients layer by layer: release the DP buckets
  // while it runs, so their reduction overlaps the rest of the backward pass.
  // PipeDream updates the weights after every micro-batch: each backward's gradients are reduced (its own buckets)
  // and the optimizer steps once the backward has sent its gradient on (finish_units; the last backward's step is
  // the step's own, maybe_finish).
  const bool async = plan_.schedule == PipelineSchedule::pipedream_async;
  for (std::size_t k = 0; k < count; ++k) {
    const PipelineUnit& x = st.order[st.next + k];
    if (!x.weight_grad()) continue;
    const bool last = st.backward_done[static_cast<std::size_t>(x.chunk)] == chunk_micro_batches_ - 1;
    if (last || async) release_buckets(s, x.chunk, start, dur);
  }
  const std::size_t index = st.next;
  engine_.schedule_in(dur, [this, s, index, count, start] { finish_units(s, index, count, start); });
}

void StepReplay::finish_units(int s, std::size_t index, std::size_t count, Time start) {
  Stage& st = stages_[static_cast<std::size_t>(s)];
  Time stream_work = Time::zero();  // compute-stream work of the units (kernels, TP and CP waits)
  std::string name;
  for (std::size_t k = 0; k < count; ++k) {
    const PipelineUnit u = st.order[index + k];
    const UnitCost& c = costs_.of(u, s);
    st.sums.compute += c.compute;
    st.sums.memory_kernels += c.memory_kernels;
    st.sums.tp_comm += c.tp_comm;
    st.sums.cp_comm += c.cp_comm;
    if (count == 1) st.sums.host_wait += st.unit_host_wait;
    st.sums.clock_seconds += c.clock_seconds;
    st.model_flops += c.model_flops;
    st.hardware_flops += c.hardware_flops;
    if (count == 1) st.sums.ep_comm += c.ep_comm;
    stream_work += c.compute + c.tp_comm + c.cp_comm + (count == 1 ? st.unit_host_wait : Time::zero());
    name += std::string(k > 0 ? " + " : "") + (u.forward ? "F" : u.part == BackwardPart::weight ? "W" : "B") + " mb" +
            std::to_string(u.micro_batch) +
            (virtual_ > 1 ? " chunk" + std::to_string(u.chunk) : "");
  }
  // Merged units: what the all-to-alls add beyond the compute stream's own work is their exposed part (their
  // contention with the compute beside them included).
  if (count > 1) {
    // The pair's host wait (its units' own, or the host's time issuing both where that is longer).
    const Time host_wait = costs_.merged_host_wait(s, st.order[index].chunk, st.order[index + 1].chunk);
    st.sums.host_wait += host_wait;
    stream_work += host_wait;
    st.sums.ep_comm += std::max(Time::zero(), (engine_.now() - start) - stream_work);
  }
  emit(s, "compute", std::move(name), start, engine_.now());

  // The micro-batch moves on to the next piece (forward) or the previous one (backward), wherever its
  // direction places it (ParallelPlan::place).
  const int last_piece = plan_.pieces() - 1;
  const bool dual = plan_.schedule == PipelineSchedule::dualpipe;
  for (std::size_t k = 0; k < count; ++k) {
    const PipelineUnit u = st.order[index + k];
    const int piece = plan_.piece(s, u.chunk);
    const int direction = dual ? u.chunk : 0;
    if (u.forward) {
      if (piece < last_piece) transfer(s, plan_.place(piece + 1, direction), true, u.micro_batch);
      else st.ready[slot(false, u.micro_batch, u.chunk)] = 1;  // the loss is here: backward may start
    } else {
      if (piece > 0 && u.input_grad()) transfer(s, plan_.place(piece - 1, direction), false, u.micro_batch);
      if (u.weight_grad()) ++st.backward_done[static_cast<std::size_t>(u.chunk)];
    }
  }
  st.next += count;
  Time step_after = Time::zero();  // PipeDream's optimizer step after a backward that is not the chunk's last
  if (plan_.schedule == PipelineSchedule::pipedream_async) {
    for (std::size_t k = 0; k < count; ++k) {
      const PipelineUnit u = st.order[index + k];
      if (u.weight_grad() && st.backward_done[static_cast<std::size_t>(u.chunk)] < chunk_micro_batches_) {
        step_after += costs_.optimizer(s);
      }
    }
  }
  if (step_after > Time::zero()) {
    st.inline_optimizer += step_after;
    st.optimizing = true;
    const Time from = engine_.now();
    engine_.schedule_in(step_after, [this, s, from] {
      Stage& stage = stages_[static_cast<std::size_t>(s)];
      emit(s, "compute", "optimizer step", from, engine_.now());
      stage.optimizing = false;
      if (stage.sends_pending == 0) release(s);
    });
    return;
  }
  if (st.sends_pending == 0) release(s);  // else the last blocking send's arrival releases the stream
}

void StepReplay::release(int s) {
  Stage& st = stages_[static_cast<std::size_t>(s)];
  st.busy = false;
  if (st.next == st.order.size()) st.last_unit_end = engine_.now();
  try_start(s);
  maybe_finish(s);
}

bool StepReplay::host_carries_on() const noexcept {
  // Megatron-Core synchronises the host with the GPU at every pipeline send and receive (batch_isend_irecv
  // followed by torch.cuda.synchronize(), ModelParallelConfig::batch_p2p_sync), so only a stage with no pipeline
  // neighbours lets its host run ahead from unit to unit; CUDA graphs leave no eager host to model.
  return plan_.pp == 1 && train_.host_launch_cost > Time::zero();
}

bool StepReplay::blocking_sends() const noexcept {
  if (plan_.schedule == PipelineSchedule::dualpipe) return false;  // DualPipe overlaps its transfers by design
  // Megatron's plain schedules wait on every send; the others post theirs beside compute unless told not to.
  if (plan_.schedule == PipelineSchedule::gpipe || plan_.schedule == PipelineSchedule::one_f_one_b) return true;
  return !train_.overlap.pp_comm;
}

void StepReplay::transfer(int from, std::pair<int, int> to_place, bool forward, int mb) {
  const auto [to, chunk] = to_place;
  const auto arrive = [this, to, forward, mb, chunk] {
    stages_[static_cast<std::size_t>(to)].ready[slot(forward, mb, chunk)] = 1;
    try_start(to);
  };
  if (from == to) {
    arrive();
    return;
  }
  // Megatron sends each TP rank's 1/tp shard of the [tokens, hidden] 16-bit activation (or its gradient).
  const double tokens = static_cast<double>(train_.micro_batch) * train_.seq_len / plan_.cp;
  CollectiveRequest req{CollectiveKind::send_recv, Bytes{tokens * static_cast<double>(model_.hidden) * 2.0 / plan_.tp},
                        p2p_pairs(from, to), forward ? "pp activation" : "pp gradient"};
  const Time start = engine_.now();
  const std::string name = std::string(forward ? "send act mb" : "send grad mb") + std::to_string(mb);
  // A blocking send holds the sender's compute stream until it completes (Overlap::pp_comm).
  const bool blocking = blocking_sends();
  if (blocking) ++stages_[static_cast<std::size_t>(from)].sends_pending;
  fabric_.start(req, [this, from, name, start, arrive, blocking] {
    emit(from, "pp comm", name, start, engine_.now());
    arrive();
    Stage& sender = stages_[static_cast<std::size_t>(from)];
    if (blocking && --sender.sends_pending == 0 && !sender.optimizing) release(from);
  });
}

void StepReplay::release_buckets(int s, int chunk, Time start, Time duration) {
  if (plan_.dp * plan_.cp == 1) return;
  Stage& st = stages_[static_cast<std::size_t>(s)];
  const double grad_bytes = costs_.chunk_params(s, chunk) * reduced_gradient_bytes(train_);
  // DataParallel reduces everything to GPU 0 in one go after the backward pass.
  const bool single = plan_.single_process_dp;
  const int buckets =
      single ? 1 : std::max(1, static_cast<int>(std::ceil(grad_bytes / static_cast<double>(train_.grad_bucket_bytes))));
  CollectiveKind kind = plan_.zero_stage >= 1 ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce;
  if (single) kind = CollectiveKind::reduce;
  double wire_bytes = grad_bytes / buckets;
  Time compress = Time::zero();
  const double ratio = train_.compression_ratio;
  const double dp = static_cast<double>(plan_.dp) * plan_.cp;
  switch (train_.compression) {
    case GradCompression::none: break;
    case GradCompression::topk:
      // Each rank gathers every rank's k (fp32 value, int32 index) pairs; selecting and scattering them back
      // costs about three passes over the bucket.
      kind = CollectiveKind::all_gather;
      wire_bytes = grad_bytes / buckets / 4.0 * ratio * 8.0 * dp;
      compress = costs_.memory_bound(Bytes{3.0 * grad_bytes / buckets});
      break;
    case GradCompression::powersgd:
      // Low-rank factors (P and Q) of `ratio` of the bucket's size, all-reduced; two GEMM-like passes and
      // the orthogonalisation cost about four passes over the bucket.
      wire_bytes = grad_bytes / buckets * ratio;
      compress = costs_.memory_bound(Bytes{4.0 * grad_bytes / buckets});
      break;
  }
  st.buckets_unreleased += buckets;
  for (int b = 0; b < buckets; ++b) {
    // Backward produces gradients at a steady rate: bucket b is complete after (b+1)/buckets of the unit.
    // Without overlap every bucket waits for the end of the backward pass.
    const bool overlap = train_.overlap.grad_reduce && !single;
    const Time ready = overlap ? start + Time::from_seconds(duration.seconds() * (b + 1) / buckets) : start + duration;
    DpWork work{compress, CollectiveRequest{kind, Bytes{wire_bytes}, dp_groups_[static_cast<std::size_t>(s)],
                                            "dp grad bucket " + std::to_string(b) + " chunk " + std::to_string(chunk)}};
    engine_.schedule_at(ready, [this, s, work = std::move(work)]() mutable {
      Stage& stage = stages_[static_cast<std::size_t>(s)];
      --stage.buckets_unreleased;
      enqueue_dp(s, std::move(work));
    });
  }
}

void StepReplay::enqueue_dp(int s, DpWork work) {
  Stage& st = stages_[static_cast<std::size_t>(s)];
  ++st.buckets_pending;
  st.dp_queue.push_back(std::move(work));
  pump_dp(s);
}

void StepReplay::pump_dp(int s) {
  Stage& st = stages_[static_cast<std::size_t>(s)];
  if (st.dp_busy || st.dp_queue.empty()) return;
  st.dp_busy = true;
  DpWork work = std::move(st.dp_queue.front());
  st.dp_queue.pop_front();
  const Time start = engine_.now();
  auto communicate = [this, s, start, req = std::move(work.request)] {
    std::string name = req.label;
    fabric_.start(req, [this, s, start, name = std::move(name)] {
      Stage& stage = stages_[static_cast<std::size_t>(s)];
      emit(s, "dp comm", name, start, engine_.now());
      stage.dp_busy = false;
      --stage.buckets_pending;
      pump_dp(s);
      maybe_finish(s);
    });
  };
  if (work.compute > Time::zero()) engine_.schedule_in(work.compute, std::move(communicate));
  else communicate();
}

void StepReplay::maybe_finish(int s) {
  Stage& st = stages_[static_cast<std::size_t>(s)];
  // A stage whose stream still waits for its last unit's send (blocking sends) has not finished that unit.
  if (st.finishing || st.busy || st.next < st.order.size() || st.buckets_pending > 0 || st.buckets_unreleased > 0) return;
  st.finishing = true;
  st.optimizer_start = engine_.now();
  st.sums.dp_comm = st.optimizer_start - st.last_unit_end;
  // The units' busy time is what finish_unit summed: UnitCost::total() = compute + TP + CP + EP + host wait.
  const Time busy = st.sums.compute + st.sums.tp_comm + st.sums.cp_comm + st.sums.ep_comm + st.sums.host_wait +
                    st.inline_optimizer;
  // With the optimizer's post-update validation a stage's step runs from its own first unit (it starts the next
  // step as soon as it is done: validates_after_update), else from the step's start.
  const Time from = validates_after_update(plan_.schedule) ? st.first_start : step_start_;
  st.sums.pipeline_wait = (st.last_unit_end - from) - busy;
  const Time opt = costs_.optimizer(s);
  st.sums.optimizer = opt + st.inline_optimizer;
  engine_.schedule_in(opt, [this, s] {
    Stage& stage = stages_[static_cast<std::size_t>(s)];
    emit(s, "compute", "optimizer step", stage.optimizer_start, engine_.now());
    const bool gather = plan_.zero_stage >= 1 && plan_.zero_stage < 3 && plan_.dp * plan_.cp > 1 &&
                        !train_.overlap.param_gather;
    const bool broadcast = plan_.single_process_dp && plan_.dp > 1;
    if (!gather && !broadcast) {
      stage.finish = engine_.now();
      return;
    }
    double params = 0;
    for (int c = 0; c < virtual_; ++c) params += costs_.chunk_params(s, c);
    // Distributed optimizer: every rank gathers the updated working parameters of its stage. DataParallel:
    // GPU 0 broadcasts them (replicate() before the next forward).
    const char* label = broadcast ? "param broadcast" : "param all-gather";
    CollectiveRequest req{broadcast ? CollectiveKind::broadcast : CollectiveKind::all_gather,
                          Bytes{params * gathered_param_bytes(train_)}, dp_groups_[static_cast<std::size_t>(s)], label};
    const Time start = engine_.now();
    fabric_.start(req, [this, s, start, label] {
      Stage& st2 = stages_[static_cast<std::size_t>(s)];
      emit(s, "dp comm", label, start, engine_.now());
      st2.sums.param_gather = engine_.now() - start;
      st2.finish = engine_.now();
    });
  });
}

}  // namespace cs
