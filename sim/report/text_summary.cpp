#include "sim/report/text_summary.hpp"

#include "sim/core/human_units.hpp"

#include <fmt/format.h>

#include "sim/facility/tco_report.hpp"
#include "sim/report/service_report.hpp"
#include "sim/workload/pipeline_schedule.hpp"

namespace cs {

std::string pipeline_semantics(const ParallelPlan& p) {
  const std::string name = to_string(p.schedule);
  if (!flushes(p.schedule)) {
    const bool two = p.schedule == PipelineSchedule::pipedream_2bw;
    return fmt::format(
        "{}: no pipeline flush; {} weight versions in memory on stage 0; the weights are STALE: gradients are "
        "computed on weights {} {} old ({}), which changes the training, not only its speed",
        name, weight_versions(p, 0), weight_delay(p, 0), two ? "optimizer step" : "updates",
        two ? "PipeDream-2BW, Narayanan et al. ICML 2021: delay 1" : "PipeDream, SOSP 2019: pp - stage - 1, one update per micro-batch");
  }
  if (validates_after_update(p.schedule)) {
    return name + ": backward split into B (input gradient) and W (weight gradient), W deferred into the bubbles; "
                  "synchronous (same weights as 1F1B); optimizer post-update validation, so a stage starts its next "
                  "step without waiting for the others (the step is the longest stage's own span)";
  }
  if (p.schedule == PipelineSchedule::dualpipe_v) {
    return name + ": V-shaped, two pieces per rank, part of the backward split into B and W (DualPipeV's "
                  "zero-bubble slots); synchronous";
  }
  return "";
}

std::string text_summary(const Scenario& sc, const RunResult& r) {
  if (r.serving) return service_summary(sc, r);
  std::string out;
  auto line = [&](std::string_view label, const std::string& value) {
    out += fmt::format("  {:<30} {}\n", label, value);
  };
  const auto pct = [&](Time t) { return fmt::format("{:>10}  ({:4.1f}%)", to_string(t), 100.0 * (t / r.step.step_time)); };
  out += fmt::format("clustersim: {}\n", sc.name);
  out += fmt::format("  {} x {} GPUs ({} nodes, {}), model {} ({:.1f}B parameters)\n", r.gpus, sc.profile.gpu.name,
                     sc.topology.nodes(), sc.topology.name(), sc.model.name, sc.model.total_params() / 1e9);
  const std::string modules = sc.training.recompute != Recompute::full ? sc.training.recompute_modules.names() : "";
  out += fmt::format("  plan: TP{} PP{} DP{} CP{} EP{}, {} ({} {}), ZeRO-{}, {} recompute{}, {}\n", sc.plan.tp,
                     sc.plan.pp, sc.plan.dp, sc.plan.cp, sc.plan.ep, to_string(sc.plan.schedule),
                     sc.plan.schedule == PipelineSchedule::dualpipe || v_shaped(sc.plan.schedule) ? "model pieces per rank"
                                                                                                   : "virtual stages",
                     sc.plan.chunks(), sc.plan.zero_stage, to_string(sc.training.recompute),
                     modules.empty() ? "" : " (modules " + modules + ")", to_string(sc.training.precision));
  out += fmt::format("  batch: {} sequences x {} tokens, micro-batch {}, {} micro-batches per step\n\n",
                     sc.training.global_batch, sc.training.seq_len, sc.training.micro_batch,
                     sc.training.micro_batches(sc.plan));
  if (const std::string pipe = pipeline_semantics(sc.plan); !pipe.empty()) out += "  pipeline: " + pipe + "\n\n";
  out += "Performance\n";
  std::string band;
  if (r.step_band && r.step_band->valid()) {
    band = fmt::format("  ({:.0f}% band {} - {}; basis: {})", 100 * r.step_band->level,
                       to_string(Time::from_seconds(r.step_band->low)), to_string(Time::from_seconds(r.step_band->high)),
                       r.step_band->basis);
  } else if (r.step_band) {
    band = "  (no error band: " + r.step_band->basis + ")";
  }
  line("step time", to_string(r.step.step_time) + band);
  line("throughput", fmt::format("{} tokens/s ({} tokens/s per GPU)", format_si(r.tokens_per_s, ""),
                                 format_si(r.tokens_per_s / r.gpus, "")));
  line("model FLOP/s per GPU", to_string(FlopRate{r.step.model_flops.value() / r.step.step_time.seconds() / r.gpus}));
  line("MFU / HFU", fmt::format("{:.1f}% / {:.1f}% of {} ({} peak)", 100 * r.mfu, 100 * r.hfu,
                                to_string(r.peak_per_gpu), to_string(sc.training.precision)));
  if (r.sm_clock_mhz) {
    line("SM clock", fmt::format("{:.0f} MHz, time-weighted over the critical stage's kernels (power-cap model: the "
                                 "clock each kernel mix allows under the board's limit)",
                                 *r.sm_clock_mhz));
  }
  if (r.time_to_train) {
    line("time to train", fmt::format("{} for {} tokens", to_string(*r.time_to_train),
                                      format_si(*sc.training.token_budget, "")));
  }
  // One stage's time: the one that finishes last in full, the busiest up to its waits (its DP reduction,
  // optimizer and gathers are the same work as every stage's).
  const auto stage_lines = [&](const StepBreakdown& u, bool full) {
    line("compute", pct(u.compute));
    line("TP communication (exposed)", pct(u.tp_comm));
    if (sc.plan.cp > 1) line("CP communication (exposed)", pct(u.cp_comm));
    if (sc.plan.ep > 1) line("EP all-to-all (exposed)", pct(u.ep_comm));
    if (u.host_wait > Time::zero()) line("waiting for the host (eager)", pct(u.host_wait));
    line("pipeline bubble and waits", pct(u.pipeline_wait));
    if (!full) return;
    line("DP communication (exposed)", pct(u.dp_comm));
    line("optimizer step", pct(u.optimizer));
    if (u.param_gather > Time::zero()) line("parameter all-gather", pct(u.param_gather));
  };
  out += fmt::format("\nStep breakdown (pipeline stage {}, the last to finish)\n", r.step.critical_stage);
  stage_lines(r.step.breakdown, true);
  if (r.step.busiest_stage != r.step.critical_stage) {
    // The stage above mostly waits when the stages are uneven (dense first layers, the output head): show what
    // the bottleneck spends its time on.
    out += fmt::format("\nBusiest stage {} (the pipeline's bottleneck; stage {} waits for it)\n", r.step.busiest_stage,
                       r.step.critical_stage);
    stage_lines(r.step.busiest, false);
  }
  out += fmt::format("\nMemory per GPU (stage {}, the most loaded)\n", r.memory.stage);
  const MemoryBreakdown& m = r.memory;
  line("weights / grads / optimizer",
       fmt::format("{} / {} / {}", to_string(m.weights), to_string(m.gradients), to_string(m.optimizer)));
  if (m.weight_versions > 1) {
    line("stashed weight versions", fmt::format("{} ({} versions held, the working one included)",
                                                to_string(m.stashed_weights), m.weight_versions));
  }
  line("activations", to_string(m.activations) +
                          (m.activations_awaiting_w.value() > 0
                               ? " (" + to_string(m.activations_awaiting_w) + " of them waiting for their W)"
                               : ""));
  line("buffers, workspace, margin",
       fmt::format("{} / {} / {}", to_string(m.comm_buffers), to_string(m.workspace), to_string(m.fragmentation)));
  line("total", fmt::format("{} of {} ({:.0f}%){}", to_string(m.total()), to_string(r.memory_capacity),
                            100.0 * (m.total() / r.memory_capacity), r.fits_in_memory ? "" : "  OUT OF MEMORY"));
  out += "\nModels used\n";
  line("compute", fmt::format("{} ({}: {})", r.compute_provenance.profile, r.compute_provenance.kind,
                              r.compute_provenance.description));
  line("network", r.network_model);
  if (r.tco) out += "\n" + tco_summary(*r.tco);
  for (const auto& w : r.warnings) out += fmt::format("warning: {}\n", w);
  return out;
}

}  // namespace cs
