#include "sim/search/plan_space.hpp"

#include <fmt/format.h>

#include "sim/workload/pipeline_schedule.hpp"

namespace cs {
namespace {

std::vector<int> divisors(std::int64_t n) {
  std::vector<int> out;
  for (std::int64_t d = 1; d <= n; ++d) {
    if (n % d == 0) out.push_back(static_cast<int>(d));
  }
  return out;
}

}  // namespace

void apply_candidate(const PlanCandidate& c, TrainingConfig& t) {
  t.micro_batch = c.micro_batch;
  t.recompute = c.recompute;
  t.overlap.grad_reduce = c.overlap.grad_reduce;
  t.overlap.param_gather = c.overlap.param_gather;
  t.overlap.tp_comm = c.overlap.tp_comm;
  t.overlap.ep_comm = c.overlap.ep_comm;
}

std::string describe(const PlanCandidate& c) {
  const ParallelPlan& p = c.plan;
  std::string s = fmt::format("tp{} cp{} pp{} vpp{} dp{}", p.tp, p.cp, p.pp, p.virtual_stages, p.dp);
  if (p.schedule != PipelineSchedule::one_f_one_b && p.schedule != PipelineSchedule::interleaved) {
    s += " " + to_string(p.schedule);
  }
  if (p.ep > 1) s += fmt::format(" ep{}", p.ep);
  s += fmt::format(" mb{} {} zero{}", c.micro_batch, to_string(c.recompute), p.zero_stage);
  std::string o;
  const auto add = [&](bool on, const char* name) {
    if (on) o += (o.empty() ? "" : "+") + std::string(name);
  };
  add(c.overlap.grad_reduce && p.dp * p.cp > 1, "grad");
  add(c.overlap.param_gather && p.zero_stage >= 1 && p.dp * p.cp > 1, "param");
  add(c.overlap.tp_comm && p.tp > 1, "tp");
  add(c.overlap.ep_comm, "ep");
  return s + " overlap " + (o.empty() ? "none" : o);
}

nlohmann::ordered_json candidate_json(const PlanCandidate& c) {
  const ParallelPlan& p = c.plan;
  return {{"parallelism",
           {{"tp", p.tp}, {"pp", p.pp}, {"dp", p.dp}, {"cp", p.cp}, {"ep", p.ep}, {"virtual_stages", p.virtual_stages},
            {"sequence_parallel", p.sequence_parallel}, {"schedule", to_string(p.schedule)}, {"zero", p.zero_stage}}},
          {"training",
           {{"micro_batch", c.micro_batch},
            {"recompute", to_string(c.recompute)},
            {"overlap",
             {{"grad_reduce", c.overlap.grad_reduce}, {"param_gather", c.overlap.param_gather},
              {"tp_comm", c.overlap.tp_comm}, {"ep_comm", c.overlap.ep_comm}}}}},
          {"peak_memory_bytes", c.memory.value()}};
}

void enumerate_plans(const Scenario& sc, PlanSpaceCounts& counts, const std::function<void(const PlanCandidate&)>& visit) {
  const ModelSpec& m = sc.model;
  const TrainingConfig& base = sc.training;
  const int gpus = sc.gpus;
  const int node = sc.topology.node().gpus;
  const double capacity = sc.profile.gpu.memory.value();
  // With a fused (flash) attention kernel, selective recompute has nothing to rerun and nothing to free: it
  // is the same plan as no recompute, so it is enumerated only with the unfused kernel.
  const std::vector<Recompute> recomputes =
      base.attention == AttentionKernel::unfused
          ? std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full}
          : std::vector<Recompute>{Recompute::none, Recompute::full};
  for (const int tp : divisors(std::min(node, gpus))) {
    if (m.heads % tp != 0 || m.ffn_hidden % tp != 0 || (m.kv_heads % tp != 0 && tp % m.kv_heads != 0)) continue;
    if (!m.splits_mamba_over(tp)) continue;
    if (gpus % tp != 0) continue;
    for (const int cp : divisors(gpus / tp)) {
      if (base.seq_len % cp != 0 || (cp > 1 && (base.seq_len / cp) % 2 != 0)) continue;
      if (!m.splits_mamba_over(tp, cp)) continue;
      for (const int pp : divisors(gpus / tp / cp)) {
        if (m.layers % pp != 0) continue;
        const int dp = gpus / tp / cp / pp;
        if (base.global_batch % dp != 0) continue;
        ++counts.layouts;
        const std::vector<int> eps = m.is_moe() ? divisors(m.experts) : std::vector<int>{1};
        for (const int ep : eps) {
          if (ep > dp * cp || (dp * cp) % ep != 0) continue;
          for (const int v : divisors(m.layers / pp)) {
            if (v > 1 && pp == 1) continue;
            for (const int mb : divisors(base.global_batch / dp)) {
              const std::int64_t micro_batches = base.global_batch / (static_cast<std::int64_t>(mb) * dp);
              if (v > 1 && micro_batches % pp != 0) continue;
              // DualPipe beside plain 1F1B where its conditions hold (even pp, an even number of at least 2 pp
              // micro-batches).
              std::vector<PipelineSchedule> schedules{v > 1 ? PipelineSchedule::interleaved : PipelineSchedule::one_f_one_b};
              if (v == 1 && pp >= 2 && pp % 2 == 0 && micro_batches % 2 == 0 && micro_batches >= 2 * pp) {
                schedules.push_back(PipelineSchedule::dualpipe);
              }
              // The synchronous zero-bubble schedules where the pipeline holds at least 2 pp micro-batches (with
              // fewer, ZB-H2 cannot fill its warm-up and the V its way back): ZB-H1 (1F1B's memory), ZB-H2 (about
              // twice it) and ZB-V (two pieces per rank, each of half a stage's layers). PipeDream's stale-weight
              // schedules change the training itself, so the search leaves them to the user.
              if (v == 1 && pp >= 2 && micro_batches >= 2 * pp) {
                schedules.push_back(PipelineSchedule::zb_h1);
                schedules.push_back(PipelineSchedule::zb_h2);
                if (m.layers >= 2 * pp) schedules.push_back(PipelineSchedule::zb_v);
              }
              for (const PipelineSchedule schedule : schedules) {
              for (const Recompute rc : recomputes) {
                for (int zero = 0; zero <= (dp * cp > 1 ? 3 : 0); ++zero) {
                  PlanCandidate c;
                  c.plan.tp = tp;
                  c.plan.cp = cp;
                  c.plan.pp = pp;
                  c.plan.dp = dp;
                  c.plan.ep = ep;
                  c.plan.virtual_stages = v;
                  c.plan.sequence_parallel = tp > 1;
                  c.plan.schedule = schedule;
                  c.plan.zero_stage = zero;
                  c.micro_batch = mb;
                  c.recompute = rc;
                  const bool grad = dp * cp > 1, param = zero >= 1 && dp * cp > 1, tpc = tp > 1;
                  // MoE all-to-all overlap where Megatron-Core allows it (EP, interleaving with a pipeline, no
                  // full recompute) or DualPipe pairs its couples; it holds one more micro-batch, so its memory is
                  // checked on its own.
                  const bool epc = layout_allows_ep_overlap(m, c.plan) && rc != Recompute::full && micro_batches >= 2;
                  const int variants = (grad ? 2 : 1) * (param ? 2 : 1) * (tpc ? 2 : 1);
                  for (const bool e : epc ? std::vector<bool>{true, false} : std::vector<bool>{false}) {
                    c.overlap.ep_comm = e;
                    TrainingConfig t = base;
                    apply_candidate(c, t);
                    counts.enumerated += variants;
                    c.memory = peak_memory_per_gpu(m, c.plan, t).total();
                    if (c.memory.value() > capacity) {
                      counts.out_of_memory += variants;
                      continue;
                    }
                    for (const bool g : grad ? std::vector<bool>{true, false} : std::vector<bool>{false}) {
                      for (const bool pg : param ? std::vector<bool>{true, false} : std::vector<bool>{false}) {
                        for (const bool tc : tpc ? std::vector<bool>{true, false} : std::vector<bool>{false}) {
                          c.overlap.grad_reduce = g;
                          c.overlap.param_gather = pg;
                          c.overlap.tp_comm = tc;
                          ++counts.valid;
                          visit(c);
                        }
                      }
                    }
                  }
                }
              }
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace cs
