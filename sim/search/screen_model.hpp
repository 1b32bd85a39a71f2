// The plan search's fast screen: a closed-form step time for a candidate, built from the same per-layer
// unit costs the replay uses (UnitCosts over the device's cost model and the idle-fabric collective
// estimate) and a textbook pipeline formula instead of the event-driven replay:
//
//   W      = (L/pp) * (F + B) + max(embedding, output) per micro-batch on the busiest stage
//   T_pipe = m * W + (pp - 1) * (L/pp/vpp) * (F + B) + 2 * (pp - 1) * t_p2p          (1F1B / interleaved)
//   step   = T_pipe + exposed DP reduction + optimizer + exposed ZeRO parameter gathers
//
// F and B are one transformer layer's forward and backward (recompute and exposed TP/CP/EP collectives
// included) for the candidate's tp, cp, ep, micro-batch, recompute and TP overlap; they are priced once per
// such combination and cached, so screening costs a few hash look-ups per plan. The DP reduction is exposed
// beyond one micro-batch's backward of the stage when overlapped (whole otherwise). MoE models are screened
// as if every layer were an MoE layer; models whose layers alternate a sliding window and full attention at
// the mean of the two kinds. Not thread-safe (caches); use one per thread (search_plans screens on
// several, each key's plans on one).
#pragma once

#include <map>
#include <memory>
#include <tuple>

#include "sim/collectives/group_list.hpp"
#include "sim/core/event_engine.hpp"
#include "sim/search/plan_space.hpp"

namespace cs {

class AnalyticCollectives;
class ComputeCostModel;
class MemoCostModel;

struct ScreenEstimate {
  Time step;
  Time compute;      ///< micro-batches x busiest stage's units
  Time bubble;       ///< pipeline fill and drain, stage-to-stage ramp transfers
  Time dp_exposed;
  Time optimizer;
  Time param_gather;  ///< exposed ZeRO parameter all-gathers
  double mfu = 0;
};

class ScreenModel {
 public:
  explicit ScreenModel(const Scenario& sc);
  ~ScreenModel();
  ScreenModel(const ScreenModel&) = delete;
  ScreenModel& operator=(const ScreenModel&) = delete;

  [[nodiscard]] ScreenEstimate estimate(const PlanCandidate& c);

  /// What a plan's per-layer costs depend on (tp, cp, ep, expert TP, micro-batch, recompute, TP overlap, EP
  /// overlap): plans with one key share the layer this model prices once, so a parallel screen hands each key's
  /// plans to one thread.
  using LayerKey = std::tuple<int, int, int, int, int, int, bool, bool>;
  [[nodiscard]] static LayerKey layer_key(const PlanCandidate& c);

 private:
  struct LayerCost {
    Time f, b;              ///< one transformer layer
    Time w;                 ///< the weight-gradient part of `b` (zero-bubble schedules)
    Time extra_f, extra_b;  ///< the heavier of the embedding and the output layer
    double flops = 0;       ///< model FLOPs of one layer fwd+bwd per GPU
    double extra_flops = 0; ///< embedding + output model FLOPs per GPU
    Time merged;            ///< one layer's forward and backward run merged (EP overlap), when the plan has it
  };
  const LayerCost& layer_cost(const PlanCandidate& c);
  enum class Group { p2p, dp };  ///< stage 0 -> 1 send/recv pair, or stage 0's first DP x CP group
  Time collective(CollectiveKind kind, double bytes, const ParallelPlan& p, Group group);

  const Scenario& sc_;
  std::unique_ptr<ComputeCostModel> compute_;
  std::unique_ptr<MemoCostModel> kernels_;  ///< compute_, remembered per kernel shape across plans
  EventEngine engine_;
  std::unique_ptr<AnalyticCollectives> estimator_;
  std::map<LayerKey, LayerCost> layers_;
  std::map<std::tuple<int, double, int, int, int, int, int>, Time> collectives_;
  /// Every collective request the layers' unit costs ask, by kind, size and groups: plans that share a layer's
  /// shape and differ in recompute or overlap ask the same ones.
  /// Keyed by kind, size and a hash of the groups; the groups are kept to tell a hash collision from a hit.
  std::map<std::tuple<int, double, std::size_t>, std::pair<GroupList, Time>> requests_;
};

}  // namespace cs
