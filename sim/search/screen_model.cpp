#include "sim/search/screen_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "sim/collectives/analytic_collectives.hpp"
#include "sim/replay/rank_layout.hpp"
#include "sim/hardware/memo_cost_model.hpp"
#include "sim/hardware/overlap_contention.hpp"
#include "sim/replay/merged_units.hpp"
#include "sim/replay/unit_costs.hpp"

namespace cs {

ScreenModel::ScreenModel(const Scenario& sc)
    : sc_(sc),
      compute_(make_cost_model(sc.profile, sc.facility.power.gpu_power_cap)),
      kernels_(std::make_unique<MemoCostModel>(*compute_)),
      estimator_(std::make_unique<AnalyticCollectives>(engine_, sc.topology)) {}

ScreenModel::~ScreenModel() = default;

Time ScreenModel::collective(CollectiveKind kind, double bytes, const ParallelPlan& p, Group group) {
  const auto key = std::tuple{static_cast<int>(kind), bytes, static_cast<int>(group), p.tp, p.cp, p.dp, p.pp};
  if (auto it = collectives_.find(key); it != collectives_.end()) return it->second;
  // Ranks are t + tp*(c + cp*(d + dp*s)) (RankLayout): the representative groups are built directly rather
  // than listing every group of the cluster.
  const RankLayout layout(p);
  std::vector<int> ranks;
  if (group == Group::p2p) {
    ranks = {layout.rank(0, 0, 0, 0), layout.rank(0, 0, 0, 1)};
  } else {
    for (int d = 0; d < p.dp; ++d) {
      for (int c = 0; c < p.cp; ++c) ranks.push_back(layout.rank(0, c, d, 0));
    }
  }
  const Time t = ranks.size() < 2 ? Time::zero() : estimator_->duration(CollectiveRequest{kind, Bytes{bytes}, {ranks}, "screen"});
  collectives_.emplace(key, t);
  return t;
}

ScreenModel::LayerKey ScreenModel::layer_key(const PlanCandidate& c) {
  return {c.plan.tp, c.plan.cp, c.plan.ep, c.plan.expert_tp, c.micro_batch, static_cast<int>(c.recompute),
          c.overlap.tp_comm && c.plan.tp > 1, c.overlap.ep_comm};
}

const ScreenModel::LayerCost& ScreenModel::layer_cost(const PlanCandidate& c) {
  const LayerKey key = layer_key(c);
  if (auto it = layers_.find(key); it != layers_.end()) return it->second;
  // Two pipeline stages of a 2-layer and a 4-layer copy of the model: stage 0 holds the embedding and 1 or 2
  // layers, stage 1 the output layer and 1 or 2 layers; the differences isolate one layer and the extras.
  ParallelPlan p;
  p.tp = c.plan.tp;
  p.cp = c.plan.cp;
  p.ep = c.plan.ep;
  p.expert_tp = c.plan.expert_tp;
  p.pp = 2;
  p.schedule = PipelineSchedule::zb_h1;  // a split backward: its W part too (the same kernels either way)
  // The layer's collectives run over stage 0's first TP group and its CP and EP groups, which are the same for
  // any DP degree that makes the stage a whole number of EP blocks (RankLayout::ep_groups): the smallest such
  // degree lists the fewest ranks (at CP 16 x EP 256 a DP of EP would list 8,192 per stage).
  const int block = p.etp() * p.ep;
  p.dp = std::max(1, block / std::gcd(block, p.tp * p.cp));
  p.sequence_parallel = c.plan.sequence_parallel;
  TrainingConfig t = sc_.training;
  PlanCandidate tmp = c;
  apply_candidate(tmp, t);
  const auto estimate = [this](const CollectiveRequest& r) {
    std::size_t h = r.groups.size();
    for (const auto& g : r.groups) {
      for (const int rank : g) h = h * 1000003u ^ static_cast<std::size_t>(rank);
      h = h * 31u + g.size();
    }
    const auto request = std::tuple{static_cast<int>(r.kind), r.bytes.value(), h};
    const auto same = [&](const GroupList& a) { return std::equal(a.begin(), a.end(), r.groups.begin(), r.groups.end()); };
    if (auto it = requests_.find(request); it != requests_.end() && same(it->second.first)) return it->second.second;
    const Time d = estimator_->duration(r);
    requests_.emplace(request, std::pair{r.groups, d});  // a colliding key keeps its first entry
    return d;
  };
  const int node_gpus = sc_.topology.node().gpus;
  const auto price = [&](const ModelSpec& model) {
    ModelSpec m2 = model, m4 = model;
    m2.layers = 2;
    m4.layers = 4;
    if (model.is_hybrid()) {  // a model of one kind of block (see below)
      m2.hybrid_pattern = std::string(2, model.hybrid_pattern.front());
      m4.hybrid_pattern = std::string(4, model.hybrid_pattern.front());
    }
    m2.dense_layers = m4.dense_layers = 0;
    const Time host = sc_.topology.node().host_linear_forward;
    const UnitCosts u2(m2, p, t, *kernels_, estimate, sc_.profile.gpu.sm_count, node_gpus, host);
    const UnitCosts u4(m4, p, t, *kernels_, estimate, sc_.profile.gpu.sm_count, node_gpus, host);
    LayerCost lc;
    lc.f = u4.forward(0, 0).total() - u2.forward(0, 0).total();
    lc.b = u4.backward(0, 0).total() - u2.backward(0, 0).total();
    lc.w = u4.weight_grad(0, 0).total() - u2.weight_grad(0, 0).total();
    const Time embed_f = u2.forward(0, 0).total() - lc.f, embed_b = u2.backward(0, 0).total() - lc.b;
    const Time out_f = u2.forward(1, 0).total() - lc.f, out_b = u2.backward(1, 0).total() - lc.b;
    if (embed_f + embed_b >= out_f + out_b) {
      lc.extra_f = embed_f;
      lc.extra_b = embed_b;
    } else {
      lc.extra_f = out_f;
      lc.extra_b = out_b;
    }
    if (c.overlap.ep_comm) {
      // One layer's forward and backward merged (EP overlap): the difference of the two copies' merged units.
      const double slowdown = overlap_gemm_slowdown(t.overlap.ep_comm_sms, sc_.profile.gpu.sm_count);
      // Host waits included: the host issues both units of a pair (UnitCosts::merged_pair_host_wait).
      const auto pair = [&](const UnitCosts& u) {
        const Time gpu = merged_time(u.forward(0, 0).phases, u.backward(0, 0).phases, slowdown);
        return gpu + u.merged_pair_host_wait(u.forward(0, 0), u.backward(0, 0), gpu);
      };
      lc.merged = pair(u4) - pair(u2);
    }
    const auto flops = [](const UnitCost& u) { return u.model_flops.value(); };
    lc.flops = flops(u4.forward(0, 0)) + flops(u4.backward(0, 0)) - flops(u2.forward(0, 0)) - flops(u2.backward(0, 0));
    lc.extra_flops = flops(u2.forward(0, 0)) + flops(u2.backward(0, 0)) + flops(u2.forward(1, 0)) +
                     flops(u2.backward(1, 0)) - 2 * lc.flops;
    return lc;
  };
  const ModelSpec& m = sc_.model;
  // The mean layer: each kind of layer priced as a model of that kind only, weighted by its share of the layers.
  // Kinds are a hybrid model's blocks (Mamba mixers, attention, MLPs) and, where some layers attend within a
  // sliding window and others to the whole prefix (GPT-OSS), the two spans.
  std::vector<std::pair<ModelSpec, int>> kinds;
  if (m.is_hybrid()) {
    std::map<char, int> counts;
    for (const char ch : m.hybrid_pattern) ++counts[ch];
    for (const auto& [ch, n] : counts) {
      ModelSpec one = m;
      one.hybrid_pattern = std::string(static_cast<std::size_t>(m.layers), ch);
      kinds.emplace_back(std::move(one), n);
    }
  } else {
    int windowed = 0;
    for (int l = 0; l < m.layers; ++l) windowed += m.windowed_layer(l) ? 1 : 0;
    if (windowed == 0 || windowed == m.layers) {
      kinds.emplace_back(m, m.layers);
    } else {
      ModelSpec all_windowed = m, all_full = m;
      all_windowed.full_attention_every = 0;
      all_full.sliding_window = 0;
      kinds.emplace_back(std::move(all_windowed), windowed);
      kinds.emplace_back(std::move(all_full), m.layers - windowed);
    }
  }
  LayerCost lc;
  if (kinds.size() == 1) {
    lc = price(kinds.front().first);
  } else {
    const auto add = [](Time into, Time part, double share) { return into + Time::from_seconds(share * part.seconds()); };
    for (const auto& [model, n] : kinds) {
      const LayerCost k = price(model);
      const double share = static_cast<double>(n) / m.layers;
      lc.f = add(lc.f, k.f, share);
      lc.b = add(lc.b, k.b, share);
      lc.w = add(lc.w, k.w, share);
      lc.extra_f = add(lc.extra_f, k.extra_f, share);
      lc.extra_b = add(lc.extra_b, k.extra_b, share);
      lc.merged = add(lc.merged, k.merged, share);
      lc.flops += share * k.flops;
      lc.extra_flops += share * k.extra_flops;
    }
  }
  return layers_.emplace(key, lc).first->second;
}

ScreenEstimate ScreenModel::estimate(const PlanCandidate& c) {
  // Arithmetic in seconds (doubles); Time only at the boundaries.
  const ParallelPlan& p = c.plan;
  const LayerCost& lc = layer_cost(c);
  const int layers_per_stage = sc_.model.layers / p.pp;
  const double m = static_cast<double>(sc_.training.global_batch) / (static_cast<double>(c.micro_batch) * p.dp);
  // Merged forward-backward units (EP overlap) take their merged time; the pipeline bubble below keeps the
  // unmerged per-layer time, as the warm-up and drain run unmerged.
  const double per_layer = c.overlap.ep_comm ? lc.merged.seconds() : (lc.f + lc.b).seconds();
  const double stage_unit = per_layer * layers_per_stage + (lc.extra_f + lc.extra_b).seconds();
  double compute = stage_unit * m, bubble = 0, dp_exposed = 0, param_gather = 0;
  if (p.pp > 1) {
    const double act_bytes = static_cast<double>(c.micro_batch) * sc_.training.seq_len / p.cp *
                             static_cast<double>(sc_.model.hidden) * 2.0 / p.tp;
    const double p2p = collective(CollectiveKind::send_recv, act_bytes, p, Group::p2p).seconds();
    bubble = (lc.f + lc.b).seconds() * layers_per_stage / p.virtual_stages * (p.pp - 1.0) + p2p * 2.0 * (p.pp - 1.0);
    if (p.schedule == PipelineSchedule::dualpipe) {
      // DualPipe's (pp/2 - 1)(F&B + B - 3W) with the weight gradient inside the backward (W = 0, as replayed).
      bubble = (per_layer + lc.b.seconds()) * layers_per_stage * (p.pp / 2 - 1.0) + p2p * 2.0 * (p.pp - 1.0);
    }
    // The zero-bubble schedules' bubbles (Qi et al. 2024, Table 1; lc.b is the whole backward, B + W): ZB-H1
    // (pp-1)(F + B - W), ZB-H2 (pp-1)(F + B - 2W) when positive; ZB-V the latter on pieces of half a stage, plus
    // the tail the greedy V leaves, about one piece's forward per rank (pipeline_checks_test: 3 of 48 units at
    // pp 4, 9 of 144 at pp 8).
    const double f = lc.f.seconds(), w = lc.w.seconds(), b_in = lc.b.seconds() - w, per_stage = layers_per_stage;
    if (p.schedule == PipelineSchedule::zb_h1) bubble = (f + b_in - w) * per_stage * (p.pp - 1.0) + p2p * 2.0 * (p.pp - 1.0);
    if (p.schedule == PipelineSchedule::zb_h2) {
      bubble = std::max(0.0, f + b_in - 2.0 * w) * per_stage * (p.pp - 1.0) + p2p * 2.0 * (p.pp - 1.0);
    }
    if (p.schedule == PipelineSchedule::zb_v) {
      bubble = (std::max(0.0, f + b_in - 2.0 * w) + f) * per_stage / 2.0 * (p.pp - 1.0) + p2p * 4.0 * (p.pp - 1.0);
    }
  }
  // The busiest stage's parameters (the first or last, which hold the embedding or the output layer).
  const double params = std::max(params_per_gpu(sc_.model, p, 0), params_per_gpu(sc_.model, p, p.pp - 1));
  const double shard = static_cast<double>(p.dp) * p.cp;
  if (shard > 1) {
    // Gradients are reduced in buckets (grad_bucket_bytes each, per chunk as the replay does): each bucket pays
    // the collective's latency, which dominates for large DP groups.
    const double grad_bytes = params * reduced_gradient_bytes(sc_.training);
    const double buckets = std::max(1.0, std::ceil(grad_bytes / p.chunks() /
                                                   static_cast<double>(sc_.training.grad_bucket_bytes))) *
                           p.chunks();
    const double bucket = collective(p.zero_stage >= 1 ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce,
                                     grad_bytes / buckets, p, Group::dp)
                              .seconds();
    const double reduce = bucket * buckets;
    // Overlapped, the last micro-batch's backward hides all but the last bucket.
    dp_exposed = c.overlap.grad_reduce ? std::max(reduce - per_layer * layers_per_stage, bucket) : reduce;
    if (p.zero_stage >= 1 && p.zero_stage < 3 && !c.overlap.param_gather) {
      const double bytes = params * gathered_param_bytes(sc_.training);
      param_gather = collective(CollectiveKind::all_gather, bytes, p, Group::dp).seconds();
    }
    if (p.zero_stage >= 3) {
      // Every unit gathers its chunk's weights, forward and backward.
      const double chunk_bytes = params / p.chunks() * gathered_param_bytes(sc_.training);
      const double gather = collective(CollectiveKind::all_gather, chunk_bytes, p, Group::dp).seconds();
      const double unit = per_layer * layers_per_stage / p.chunks();
      const double exposed = c.overlap.param_gather ? std::max(0.0, gather * 2.0 - unit) : gather * 2.0;
      // Units per step: each of m micro-batches through each chunk; DualPipe's chunks take half of them each.
      // Split schedules gather once more for each W.
      const double units = p.schedule == PipelineSchedule::dualpipe ? 1 : p.chunks();
      param_gather = exposed * m * units * (splits_backward(p.schedule) ? 1.5 : 1.0);
    }
  }
  const double opt_bytes = params / (p.zero_stage >= 1 ? shard : 1.0) * 30.0;  // Adam: 30 B per parameter
  ScreenEstimate e;
  e.compute = Time::from_seconds(compute);
  e.bubble = Time::from_seconds(bubble);
  e.dp_exposed = Time::from_seconds(dp_exposed);
  e.param_gather = Time::from_seconds(param_gather);
  e.optimizer = compute_->memory_bound(Bytes{opt_bytes});
  const double step = compute + bubble + dp_exposed + param_gather + e.optimizer.seconds();
  e.step = Time::from_seconds(step);
  const double model_flops = (lc.flops * sc_.model.layers + lc.extra_flops) * m * p.dp * p.tp * p.cp;
  e.mfu = model_flops / (step * p.gpus() * sc_.profile.gpu.peak_for(sc_.training.precision).value());
  return e;
}

}  // namespace cs
