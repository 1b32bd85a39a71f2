// Replays one training step on the event engine: every pipeline stage runs its units in schedule order on a
// compute stream, activations and gradients cross stages as fabric transfers, gradient buckets are reduced on
// a data-parallel stream while the backward pass goes on, and each stage ends with its optimizer step.
//
// Symmetry: all TP, CP and DP ranks of a stage execute the same units at the same times, so one
// representative GPU per stage is replayed; every transfer and collective it issues is issued for all the
// groups that perform it together, so the fabric model still sees the whole cluster's traffic.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/collectives/collective.hpp"
#include "sim/core/event_engine.hpp"
#include "sim/replay/unit_costs.hpp"

namespace cs {

/// A span of simulated time on one stream of one representative GPU.
struct Span {
  int stage = 0;
  int gpu = 0;              ///< global rank of the representative GPU
  std::string stream;       ///< "compute", "dp comm" or "pp comm"
  std::string name;
  Time start, end;
};

/// Subscribers see every span as the replay produces it (trace writers, statistics).
class ReplayObserver {
 public:
  virtual ~ReplayObserver() = default;
  virtual void on_span(const Span& span) = 0;
};

struct StepBreakdown {
  Time compute;              ///< kernels on the critical stage (recompute included)
  Time memory_kernels;       ///< the bandwidth-bound part of `compute`
  Time tp_comm;              ///< exposed TP collectives
  Time cp_comm;
  Time ep_comm;
  Time host_wait;            ///< GPU idle waiting for an eager host (launch-bound units, host synchronisations)
  Time pipeline_wait;        ///< idle inside the pipeline: bubble, waits for transfers and ZeRO-3 gathers
  Time dp_comm;              ///< gradient reduction left after the last backward unit
  Time optimizer;
  Time param_gather;         ///< exposed ZeRO parameter all-gather after the optimizer step
  double clock_seconds = 0;  ///< `compute` seconds x the SM clock they ran at (fraction of f_max; UnitCost)
  /// The time-weighted SM clock of the stage's kernels, as a fraction of f_max (1 without a power-cap model).
  [[nodiscard]] double mean_clock() const noexcept {
    return compute > Time::zero() ? clock_seconds / compute.seconds() : 1.0;
  }
};

struct StepResult {
  Time step_time;
  int critical_stage = 0;      ///< the stage that finishes last
  StepBreakdown breakdown;     ///< of the critical stage
  /// The stage with the least idle time, the pipeline's bottleneck (the first stage of a 1F1B pipeline finishes
  /// last but may mostly wait for it), and its breakdown with its waits taken to the step's end.
  int busiest_stage = 0;
  StepBreakdown busiest;
  Flops model_flops;           ///< whole cluster, one step
  Flops hardware_flops;        ///< whole cluster, one step, recompute included
  std::uint64_t events = 0;    ///< engine events executed
};

/// A schedule without a pipeline flush (PipeDream-2BW, PipeDream: flushes() false) runs step after step with the
/// pipeline full, so its step is the steady state's period: the difference between a replay of two steps'
/// micro-batches (`two`) and of one step's (`one`), in which the fill, the drain, the last gradient reduction and
/// the last optimizer step cancel, plus `optimizer`, the optimizer step each step still runs on its critical stage
/// (zero where the replay ran it inside the units: PipeDream's after every backward). The gradient reduction runs
/// under the next step's micro-batches (PipeDream-2BW's double-buffered weights let them start on the old version),
/// so none is exposed. The rest of the result (FLOPs, breakdown sums) is `one`'s, its waits taken from the period.
[[nodiscard]] StepResult steady_state_step(const StepResult& one, const StepResult& two, Time optimizer);

class StepReplay {
 public:
  StepReplay(const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t, const UnitCosts& costs,
             CollectiveModel& fabric, EventEngine& engine);
  ~StepReplay();
  StepReplay(const StepReplay&) = delete;
  StepReplay& operator=(const StepReplay&) = delete;
  void add_observer(ReplayObserver& o) { observers_.push_back(&o); }
  /// Runs the step from engine.now() to completion.
  [[nodiscard]] StepResult run();

 private:
  struct Stage;
  struct DpWork;
  void try_start(int s);
  [[nodiscard]] bool zero3() const noexcept;
  void gather_params(int s, std::size_t index);
  /// Ends `count` units from `index` of stage `s`'s order that ran together from `start` (2: a merged pair).
  void finish_units(int s, std::size_t index, std::size_t count, Time start);
  void release_buckets(int s, int chunk, Time start, Time duration);
  void enqueue_dp(int s, DpWork work);
  void pump_dp(int s);
  void maybe_finish(int s);
  /// Sends a micro-batch's activation (or its gradient) from stage `from` to {stage, chunk} `to`.
  void transfer(int from, std::pair<int, int> to, bool forward, int micro_batch);
  /// Whether a pipeline send holds its stage's compute stream until it completes (Overlap::pp_comm).
  [[nodiscard]] bool blocking_sends() const noexcept;
  /// Whether a stage's eager host issues its next unit while the GPU still runs the last one (no pipeline).
  [[nodiscard]] bool host_carries_on() const noexcept;
  /// The stage's compute stream is free again: run its next unit, or finish.
  void release(int s);
  void emit(int s, const char* stream, std::string name, Time start, Time end);
  /// The (sender, receiver) pairs of a pipeline hop between stages, built on first use.
  [[nodiscard]] const GroupList& p2p_pairs(int from, int to);
  [[nodiscard]] std::size_t slot(bool forward, int micro_batch, int chunk) const noexcept;

  const ModelSpec& model_;
  ParallelPlan plan_;
  TrainingConfig train_;
  const UnitCosts& costs_;
  CollectiveModel& fabric_;
  EventEngine& engine_;
  RankLayout layout_;
  // Rank groups depend only on the plan: built once here and shared by every request that uses them.
  std::vector<GroupList> dp_groups_;                    ///< per stage
  std::map<std::pair<int, int>, GroupList> p2p_pairs_;  ///< per (from, to) stage
  int micro_batches_;
  int virtual_;              ///< chunks per rank (ParallelPlan::chunks)
  int chunk_micro_batches_;  ///< micro-batches each chunk runs: all of them, or half of them per DualPipe direction
  Time step_start_;  ///< engine time at which run() started the step
  std::vector<Stage> stages_;
  std::vector<ReplayObserver*> observers_;
};

}  // namespace cs
