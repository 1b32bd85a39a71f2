// What one simulated run of a scenario produces; the CLI, the GUI and sweeps all read this.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/collectives/network_report.hpp"
#include "sim/facility/tco_model.hpp"
#include "sim/hardware/compute_cost_model.hpp"
#include "sim/replay/step_replay.hpp"
#include "sim/serving/request_sim.hpp"
#include "sim/serving/serving_report.hpp"
#include "sim/workload/error_band.hpp"
#include "sim/workload/memory_model.hpp"

namespace cs {

/// What parallelism.placement: optimise did (sim/design/placement_optimiser.hpp).
struct PlacementReport {
  std::string method;               ///< "greedy + local search"
  Time step_time_default;           ///< Megatron's order, the nodes in the cluster's order
  Time step_time;                   ///< the placement kept (the default when the optimised one was not faster)
  double cost_default = 0;          ///< traffic-weighted fabric hops per step (byte-hops)
  double cost = 0;                  ///< the optimised placement's
  bool kept = false;                ///< the optimised placement simulated faster and is the result
  std::vector<int> node_slots;      ///< the optimised fabric position of each node, in rank order
};

struct RunResult {
  std::string scenario;            ///< scenario name
  int gpus = 0;
  StepResult step;
  /// How far the step time may be off, from the validation residuals the scenario names (band_basis.hpp); set by
  /// run_scenario, with samples 0 and the reason in its basis when there are no residuals to rest on.
  std::optional<ErrorBand> step_band;
  double tokens_per_step = 0;      ///< global batch x sequence length
  double tokens_per_s = 0;
  double mfu = 0;                  ///< model FLOPs / (step time x GPUs x peak of the training precision)
  double hfu = 0;                  ///< the same with recompute FLOPs counted
  FlopRate peak_per_gpu;           ///< the denominator of MFU and HFU
  MemoryBreakdown memory;          ///< the most loaded GPU
  Bytes memory_capacity;           ///< per GPU
  bool fits_in_memory = true;
  std::optional<Time> time_to_train;
  /// The SM clock the critical stage's kernels run at, time-weighted, when the profile models the power cap
  /// (the clock each replay unit's kernel mix settles at under the board's limit, or a user's lower cap).
  std::optional<double> sm_clock_mhz;
  Provenance compute_provenance;
  std::string network_model;       ///< which communication model ran
  NetworkReport network;           ///< the model's report: backend, calibration, per-link statistics
  std::vector<std::string> warnings;
  /// Power, reliability and cost; present when the scenario gives a token budget (a training job) or is an
  /// inference service (then its tokens are those served in the simulated window).
  std::optional<TcoReport> tco;
  /// An inference service's result (the scenario's `serving:`): latency, throughput, goodput, KV cache; the
  /// training fields above are then unset.
  std::optional<ServingResult> serving;
  std::string serving_comm;        ///< how the replica's communication was priced
  /// The service's first iterations (when its config asks to record them): the timeline of `run --trace`.
  std::vector<IterationRecord> serving_iterations;
  /// Set when the plan asks for placement: optimise.
  std::optional<PlacementReport> placement;
};

}  // namespace cs
