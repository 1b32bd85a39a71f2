#include "sim/report/json_result.hpp"

#include "sim/facility/tco_report.hpp"
#include "sim/report/network_json.hpp"
#include "sim/report/service_report.hpp"
#include "sim/workload/pipeline_schedule.hpp"

namespace cs {

nlohmann::ordered_json to_json(const Scenario& sc, const RunResult& r) {
  if (r.serving) return service_json(sc, r);
  using J = nlohmann::ordered_json;
  J j;
  j["format_version"] = 1;
  j["scenario"] = sc.name;
  j["scenario_file"] = sc.file;
  j["gpus"] = r.gpus;
  j["step_time_s"] = r.step.step_time.seconds();
  if (r.step_band) {
    // lo and hi are null when there is no band; basis then says why.
    const ErrorBand& b = *r.step_band;
    j["step_time_band_s"] = {{"lo", b.valid() ? J(b.low) : J(nullptr)},
                             {"hi", b.valid() ? J(b.high) : J(nullptr)},
                             {"level", b.level},
                             {"samples", b.samples},
                             {"basis", b.basis}};
  } else {
    j["step_time_band_s"] = nullptr;
  }
  j["tokens_per_s"] = r.tokens_per_s;
  j["tokens_per_s_per_gpu"] = r.tokens_per_s / r.gpus;
  j["mfu"] = r.mfu;
  j["hfu"] = r.hfu;
  j["model_tflops_per_gpu"] = r.step.model_flops.value() / r.step.step_time.seconds() / r.gpus / 1e12;
  j["peak_tflops_per_gpu"] = r.peak_per_gpu.value() / 1e12;
  j["peak_memory_bytes"] = r.memory.total().value();
  j["memory_capacity_bytes"] = r.memory_capacity.value();
  j["fits_in_memory"] = r.fits_in_memory;
  j["time_to_train_s"] = r.time_to_train ? J(r.time_to_train->seconds()) : J(nullptr);
  j["tokens_per_step"] = r.tokens_per_step;

  if (splits_backward(sc.plan.schedule) || !flushes(sc.plan.schedule)) {
    // Zero-bubble, V-shaped and PipeDream schedules state what they do to the training (absent for the others,
    // which flush and use one weight version).
    const bool two = sc.plan.schedule == PipelineSchedule::pipedream_2bw;
    j["pipeline"] = {{"schedule", to_string(sc.plan.schedule)},
                     {"flush", flushes(sc.plan.schedule)},
                     {"split_backward", splits_backward(sc.plan.schedule)},
                     {"post_update_validation", validates_after_update(sc.plan.schedule)},
                     {"weight_versions", weight_versions(sc.plan, 0)},
                     {"weight_delay", weight_delay(sc.plan, 0)},
                     {"weight_delay_unit", flushes(sc.plan.schedule) ? "none" : two ? "optimizer steps" : "weight updates (one per micro-batch)"},
                     {"synchronous", flushes(sc.plan.schedule)}};
  }
  j["breakdown"] = breakdown_json(r.step, r.sm_clock_mhz);
  j["memory"] = memory_json(r.memory);
  j["compute_model"] = {{"profile", r.compute_provenance.profile},
                        {"source", r.compute_provenance.kind},
                        {"reference", r.compute_provenance.description}};
  j["network"] = network_json(r.network);
  j["network"]["model"] = r.network_model;
  // Filled when the scenario gives a token budget (a training run to cost); null otherwise.
  j["power"] = r.tco ? power_json(r.tco->power) : J(nullptr);
  j["tco"] = r.tco ? tco_json(*r.tco) : J(nullptr);
  j["reliability"] = r.tco ? reliability_json(r.tco->reliability) : J(nullptr);
  j["warnings"] = r.warnings;
  j["simulation"] = {{"events", r.step.events}};
  return j;
}

namespace {

/// One stage's time, in the keys `run --json` and `validate --json` share.
nlohmann::ordered_json stage_json(const StepBreakdown& b) {
  return {
      {"compute_s", b.compute.seconds()},
      {"memory_bound_kernels_s", b.memory_kernels.seconds()},
      {"tp_comm_exposed_s", b.tp_comm.seconds()},
      {"cp_comm_exposed_s", b.cp_comm.seconds()},
      {"ep_comm_exposed_s", b.ep_comm.seconds()},
      {"host_wait_s", b.host_wait.seconds()},
      {"pipeline_bubble_and_wait_s", b.pipeline_wait.seconds()},
      {"dp_comm_exposed_s", b.dp_comm.seconds()},
      {"optimizer_s", b.optimizer.seconds()},
      {"param_gather_exposed_s", b.param_gather.seconds()},
  };
}

}  // namespace

nlohmann::ordered_json memory_json(const MemoryBreakdown& m) {
  nlohmann::ordered_json j = {
      {"stage", m.stage},
      {"weights_bytes", m.weights.value()},
      {"gradients_bytes", m.gradients.value()},
      {"optimizer_bytes", m.optimizer.value()},
      {"activations_bytes", m.activations.value()},
      {"comm_buffers_bytes", m.comm_buffers.value()},
      {"workspace_bytes", m.workspace.value()},
      {"fragmentation_bytes", m.fragmentation.value()},
  };
  if (m.activations_awaiting_w.value() > 0) {  // a split backward's Ws still to run (absent otherwise)
    j["activations_awaiting_w_bytes"] = m.activations_awaiting_w.value();
  }
  if (m.weight_versions > 1) {  // PipeDream's stashed versions (absent where one version is kept)
    j["stashed_weights_bytes"] = m.stashed_weights.value();
    j["weight_versions"] = m.weight_versions;
  }
  return j;
}

nlohmann::ordered_json breakdown_json(const StepResult& step, std::optional<double> sm_clock_mhz) {
  using J = nlohmann::ordered_json;
  J j = {{"critical_stage", step.critical_stage}};
  j.update(stage_json(step.breakdown));  // appended in order after critical_stage
  j["sm_clock_mhz"] = sm_clock_mhz ? J(*sm_clock_mhz) : J(nullptr);
  j["busiest_stage"] = step.busiest_stage;
  j["busiest"] = stage_json(step.busiest);
  return j;
}

}  // namespace cs
