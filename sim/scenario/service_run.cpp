#include "sim/scenario/service_run.hpp"

#include <algorithm>

#include "sim/facility/price_book.hpp"
#include "sim/scenario/facility_link.hpp"
#include "sim/serving/replica_comm.hpp"
#include "sim/serving/serving_runner.hpp"

namespace cs {

RunProfile service_profile(const Scenario& sc, const ServingResult& s) {
  RunProfile run;
  run.step_time = s.makespan;
  const double busy = std::clamp(s.gpu_busy, 0.0, 1.0);
  const double window = s.makespan.seconds();
  run.fractions = fractions_from_times(Time::from_seconds(window * busy * s.prefill_share),
                                       Time::from_seconds(window * busy * (1 - s.prefill_share)), Time::zero(),
                                       Time::from_seconds(window * (1 - busy)));
  const double seconds = s.makespan.seconds();
  run.tokens_per_step = (s.input_tokens_per_s + s.output_tokens_per_s) * seconds;
  run.token_budget = run.tokens_per_step;
  run.parameter_count = sc.model.total_params();
  run.gpu = sc.profile.gpu;
  return run;
}

ServingRun simulate_service(const Scenario& sc, const ServingConfig& config, const ComputeCostModel& compute,
                            std::string* comm) {
  const Deployment& d = config.deployment;
  if (!d.disaggregated()) {
    const TopologyComm tp(sc.topology, d.tp, collective_calibration(sc.network));
    if (comm) *comm = tp.describe();
    return run_serving(config, sc.model, compute, tp, sc.profile.gpu.memory);
  }
  // Each pool's TP collectives at its own degree; the KV transfers as flows on the same topology.
  const TopologyComm prefill(sc.topology, d.pool(PoolRole::prefill).tp, collective_calibration(sc.network));
  const TopologyComm decode(sc.topology, d.pool(PoolRole::decode).tp, collective_calibration(sc.network));
  if (comm) *comm = prefill.describe() + "; KV transfers: flow-level max-min on " + sc.topology.name();
  return run_disaggregated_serving(config, sc.model, compute, prefill, decode, sc.topology, sc.profile.gpu.memory);
}

void run_service(const Scenario& sc, RunResult& r) {
  const ServingConfig& config = *sc.serving;
  r.gpus = config.deployment.gpus();
  const auto compute = make_cost_model(sc.profile, sc.facility.power.gpu_power_cap);
  r.compute_provenance = compute->provenance();
  ServingRun run = simulate_service(sc, config, *compute, &r.serving_comm);
  r.serving = std::move(run.result);
  r.serving_iterations = std::move(run.iterations);
  r.memory_capacity = sc.profile.gpu.memory;
  if (r.gpus < sc.gpus) {
    r.warnings.push_back("the service uses " + std::to_string(r.gpus) + " of the node's " + std::to_string(sc.gpus) +
                         " GPUs; power and cost count the whole node");
  }
  if (r.serving->queue.unbounded) r.warnings.push_back(r.serving->queue.message);
  if (r.serving->unfinished > 0) {
    r.warnings.push_back(std::to_string(r.serving->unfinished) + " requests had not finished when the run stopped");
  }
  if (r.compute_provenance.kind != "measured") {
    r.warnings.push_back("compute costs come from the " + r.compute_provenance.kind + " profile \"" +
                         r.compute_provenance.profile + "\", not from a calibration of this GPU");
  }
  if (r.serving->makespan <= Time::zero() || r.serving->finished == 0) {
    r.warnings.push_back("no power or cost report: no request finished in the simulated window");
    return;
  }
  const PriceBook book = sc.pricebook.empty() ? PriceBook::load_default() : PriceBook::load(sc.pricebook);
  try {
    r.tco = compute_tco(sc.facility, make_inventory(sc, book), service_profile(sc, *r.serving), book);
  } catch (const InputError& e) {
    r.warnings.push_back(std::string("no power or cost report: ") + e.what());
  }
}

}  // namespace cs
