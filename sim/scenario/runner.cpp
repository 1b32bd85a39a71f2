#include "sim/scenario/runner.hpp"

#include "sim/collectives/analytic_collectives.hpp"
#include "sim/collectives/unit_collective_estimator.hpp"
#include "sim/core/event_engine.hpp"
#include "sim/scenario/facility_link.hpp"
#include "sim/scenario/band_basis.hpp"
#include "sim/scenario/service_run.hpp"

namespace cs {

RunResult run_scenario(const Scenario& sc, const std::vector<ReplayObserver*>& observers) {
  RunResult r;
  r.scenario = sc.name;
  if (sc.serving) {  // an inference service: requests, not a training step (service_run.hpp)
    run_service(sc, r);
    return r;
  }
  r.gpus = sc.plan.gpus();  // the job's GPUs (all of the cluster's, or part of a single node)
  // A user's lower board limit slows the kernels where the profile has a calibrated power-cap model; otherwise the
  // facility layer stretches the compute-bound share of the step (power_model.cpp).
  const auto compute = make_cost_model(sc.profile, sc.facility.power.gpu_power_cap);
  r.compute_provenance = compute->provenance();

  EventEngine engine;
  // Stage-to-stage transfers and DP reductions run on the fabric model the scenario chose (flow-level max-min
  // by default); the short collectives inside a unit (TP, CP, EP) are priced once before the replay, with the
  // scenario's calibration and algorithm overrides: node-local ones in closed form, those that cross nodes with
  // all the stage's groups at once on the fabric model (unit_collective_estimator.hpp).
  const std::unique_ptr<CollectiveModel> fabric_model = make_collective_model(engine, sc.topology, sc.network);
  CollectiveModel& fabric = *fabric_model;
  UnitCollectiveEstimator estimator(sc.topology, sc.network);
  r.network_model = fabric.describe();

  const UnitCosts costs(sc.model, sc.plan, sc.training, *compute,
                        [&](const CollectiveRequest& req) { return estimator.duration(req); }, sc.profile.gpu.sm_count,
                        sc.topology.node().gpus, sc.topology.node().host_linear_forward);
  const NetworkStatistics network_stats(fabric, sc.network);
  StepReplay replay(sc.model, sc.plan, sc.training, costs, fabric, engine);
  for (auto* o : observers) replay.add_observer(*o);
  r.step = replay.run();
  r.network = network_stats.report(engine.now(), r.step.step_time);
  if (!flushes(sc.plan.schedule)) {
    // No flush: the step is the steady state's period, from a second replay of two steps' micro-batches on a fresh
    // engine and fabric (steady_state_step).
    EventEngine engine2;
    const std::unique_ptr<CollectiveModel> fabric2 = make_collective_model(engine2, sc.topology, sc.network);
    TrainingConfig two_steps = sc.training;
    two_steps.global_batch *= 2;
    StepReplay replay2(sc.model, sc.plan, two_steps, costs, *fabric2, engine2);
    const bool per_micro_batch = sc.plan.schedule == PipelineSchedule::pipedream_async;
    r.step = steady_state_step(r.step, replay2.run(),
                               per_micro_batch ? Time::zero() : costs.optimizer(r.step.critical_stage));
  }

  const double step_s = r.step.step_time.seconds();
  r.step_band = step_band({is_quantized(sc.training.precision), sc.model.is_moe(), sc.plan.gpus()}, sc.profile, step_s,
                          sc.band_basis ? *sc.band_basis : ResidualSet{.problem = "the scenario names no error band basis"});
  r.tokens_per_step = static_cast<double>(sc.training.global_batch) * sc.training.seq_len;
  r.tokens_per_s = r.tokens_per_step / step_s;
  r.peak_per_gpu = sc.profile.gpu.peak_for(sc.training.precision);
  const double denom = step_s * r.gpus * r.peak_per_gpu.value();
  r.mfu = r.step.model_flops.value() / denom;
  r.hfu = r.step.hardware_flops.value() / denom;
  if (sc.training.token_budget) r.time_to_train = Time::from_seconds(*sc.training.token_budget / r.tokens_per_s);
  if (const auto& pc = sc.profile.fits.power_cap; pc && r.step.breakdown.compute > Time::zero()) {
    r.sm_clock_mhz = r.step.breakdown.mean_clock() * pc->max_clock_mhz;
  }

  if (r.gpus < sc.gpus) {
    r.warnings.push_back("the job uses " + std::to_string(r.gpus) + " of the node's " + std::to_string(sc.gpus) +
                         " GPUs; power and cost count the whole node");
  }
  r.memory = peak_memory_per_gpu(sc.model, sc.plan, sc.training);
  r.memory_capacity = sc.profile.gpu.memory;
  r.fits_in_memory = r.memory.total() <= r.memory_capacity;
  if (!r.fits_in_memory) {
    r.warnings.push_back("OUT OF MEMORY: stage " + std::to_string(r.memory.stage) + " needs " +
                         to_string(r.memory.total()) + " per GPU of " + to_string(r.memory_capacity));
  } else if (r.memory.total().value() > 0.9 * r.memory_capacity.value()) {
    r.warnings.push_back("memory above 90% of capacity (" + to_string(r.memory.total()) + " of " +
                         to_string(r.memory_capacity) + "): little headroom for fragmentation spikes");
  }
  if (r.compute_provenance.kind != "measured") {
    r.warnings.push_back("compute costs come from the " + r.compute_provenance.kind + " profile \"" +
                         r.compute_provenance.profile + "\", not from a calibration of this GPU");
  }
  if (sc.training.attention == AttentionKernel::cudnn && sc.profile.fits.cudnn_attention_fwd.empty() &&
      !sc.profile.attention_cudnn.measured()) {
    r.warnings.push_back("cuDNN's fused attention is priced as FlashAttention-2's: profile \"" +
                         sc.profile.provenance.profile + "\" has neither cuDNN attention fits nor its speed-up");
  }
  if (sc.training.token_budget) {
    const PriceBook book = sc.pricebook.empty() ? PriceBook::load_default() : PriceBook::load(sc.pricebook);
    try {
      r.tco = scenario_tco(sc, r, book);
    } catch (const InputError& e) {
      // A cluster whose parts the price book cannot price still gets its performance result.
      r.warnings.push_back(std::string("no power or cost report: ") + e.what());
    }
  }
  return r;
}

}  // namespace cs
