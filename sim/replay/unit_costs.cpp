#include "sim/replay/unit_costs.hpp"

#include <algorithm>
#include <map>

#include "sim/hardware/overlap_contention.hpp"
#include "sim/workload/memory_model.hpp"
#include "sim/workload/pipeline_schedule.hpp"

namespace cs {

UnitCost& UnitCost::operator+=(const UnitCost& o) noexcept {
  compute += o.compute;
  memory_kernels += o.memory_kernels;
  tp_comm += o.tp_comm;
  cp_comm += o.cp_comm;
  ep_comm += o.ep_comm;
  host_wait += o.host_wait;  // `issue` is composed in order by the caller, not summed
  model_flops += o.model_flops;
  hardware_flops += o.hardware_flops;
  selective_recompute += o.selective_recompute;
  selective_flops += o.selective_flops;
  module_recompute += o.module_recompute;
  module_recompute_ep += o.module_recompute_ep;
  module_flops += o.module_flops;
  clock_seconds += o.clock_seconds;
  for (const Phase& ph : o.phases) append_phase(phases, ph);
  return *this;
}

UnitCost UnitCosts::cost_of(const std::vector<Op>& ops, const ComputeCostModel& compute,
                            const CollectiveEstimate& estimate) const {
  UnitCost u;
  // The unit's kernels run back to back at the clock their mixed power allows under the board's limit
  // (ComputeCostModel::sustained_clock; 1 for models without a power-cap model).
  std::vector<KernelLoad> loads(ops.size());
  std::vector<KernelLoad> compute_loads;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    if (op.kind == OpKind::gemm) loads[i] = compute.gemm_load(op.gemm);
    else if (op.kind == OpKind::attention) loads[i] = compute.attention_load(op.attention);
    else if (op.kind == OpKind::memory) loads[i] = compute.memory_load(op.bytes);
    else continue;
    compute_loads.push_back(loads[i]);
  }
  const double clock = compute.sustained_clock(compute_loads);
  Time last_attention = Time::zero();
  std::vector<Time> stream(ops.size());  // each op's time on the GPU's stream, for the host-issue model
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    const Time before = u.compute;
    const Time stream_before = u.total();
    switch (op.kind) {
      case OpKind::gemm: u.compute += loads[i].at(clock); break;
      case OpKind::attention:
        last_attention = loads[i].at(clock);
        u.compute += last_attention;
        break;
      case OpKind::memory: {
        // A grouped operator's kernels (one per local expert, four per expert for a current-scaling cast) each pay
        // the bandwidth-bound kernel's fixed time (the memory fit's latency), which the op's bytes alone leave out.
        const Time t = loads[i].at(clock) + compute.kernel_latency() * std::max(0, op.launches - 1);
        u.compute += t;
        u.memory_kernels += t;
        break;
      }
      case OpKind::collective: {
        CollectiveRequest req{op.collective, op.bytes, {}, op.name};
        // TP groups sit inside a node and never share links; CP and EP groups run in lockstep across the stage,
        // so their request carries every group of the stage (an estimator may price their contention).
        req.groups = op.group == CommGroup::tp ? tp_group_ : op.group == CommGroup::cp ? cp_groups_ : ep_groups_;
        const Time t = op.group == CommGroup::ep && flex_ ? flex_->time(op, estimate) : estimate(req);
        if (op.group == CommGroup::tp) {
          Time hidden = Time::zero();
          if (train_.overlap.tp_comm) {
            // Userbuffers-style overlap hides the collective behind the GEMM it feeds or follows.
            for (std::size_t j = i + 1; j < ops.size(); ++j) {
              if (ops[j].kind == OpKind::gemm) { hidden = loads[j].at(clock); break; }
            }
          }
          // What the GEMM hides still slows it, for as long as they overlap: the collective holds SMs and moves
          // data through HBM beside it (measured on the H200, hardware/overlap_contention.hpp).
          const double slowdown = overlap_gemm_slowdown(train_.overlap.tp_comm_sms, sm_count_);
          u.tp_comm += std::max(Time::zero(), t - hidden) + Time::from_seconds(std::min(t, hidden).seconds() * slowdown);
        } else if (op.group == CommGroup::cp) {
          u.cp_comm += std::max(Time::zero(), t - last_attention);  // ring steps overlap the attention blocks
        } else {
          u.ep_comm += t;
        }
        break;
      }
    }
    // Eager framework: the GPU idles after each operator; a grouped operator's further kernels add a gap each
    // from a Python loop, none from a native loop (queued back to back, as the calibration timed kernels).
    if (op.kind != OpKind::collective && (op.graph_modules & train_.cuda_graph_modules.bits()) == 0) {
      const bool each = train_.grouped_launch == GroupedLaunch::python || op.python_launches;
      u.compute += train_.kernel_gap * (each ? op.launches : 1);
    }
    stream[i] = u.total() - stream_before;
    // EP all-to-alls on the communication stream, everything else (kernels, gaps, TP and CP waits) on compute.
    append_phase(u.phases, {stream[i], op.kind == OpKind::collective && op.group == CommGroup::ep});
    u.model_flops += op.model_flops;
    if (op.selective_recompute) {
      u.selective_recompute += u.compute - before;
      u.selective_flops += op.model_flops;
    }
    if ((op.recompute_modules & train_.recompute_modules.bits()) != 0) {
      const bool ep = op.kind == OpKind::collective && op.group == CommGroup::ep;
      (ep ? u.module_recompute_ep : u.module_recompute) += stream[i];
      u.module_flops += op.model_flops;
    }
  }
  u.hardware_flops = u.model_flops;
  u.clock_seconds = clock * u.compute.seconds();
  u.issue = HostIssue::of(ops, stream, launch_costs(), train_.grouped_launch, train_.cuda_graph_modules.bits());
  return u;
}

LaunchCosts UnitCosts::launch_costs() const noexcept {
  if (train_.host_launch_cost <= Time::zero()) return LaunchCosts{};  // captured in CUDA graphs: no eager host
  // A grouped GEMM's further launches: cuBLAS's host side (native_gemm_launch) times the framework's work per call,
  // up to what the framework's grouped GEMM measured (grouped_gemm_launch); its per-expert casts are a C++ loop
  // (split_quantize) at native_kernel_launch.
  const FrameworkHostCosts& c = train_.host_costs;
  if (train_.host_work == HostWork::uniform) {
    return LaunchCosts{scaled(train_.host_launch_cost, host_scale_), scaled(train_.host_launch_cost, host_scale_),
                       scaled(c.native_gemm_launch, host_scale_), scaled(c.native_kernel_launch, host_scale_)};
  }
  const double cap = c.native_gemm_launch > Time::zero()
                         ? c.grouped_gemm_launch.seconds() / c.native_gemm_launch.seconds()
                         : train_.framework_host_factor;
  const double gemm_factor = std::min(train_.framework_host_factor, std::max(cap, 1.0));
  return LaunchCosts{scaled(train_.host_launch_cost, host_scale_), host_scaled(train_.host_launch_cost),
                     host_scaled(scaled(c.native_gemm_launch, gemm_factor)), host_scaled(c.native_kernel_launch)};
}

UnitTimes UnitCosts::unit_times() const noexcept {
  if (input_.empty()) return {};
  double f = 0, b = 0, w = 0;
  for (std::size_t i = 0; i < fwd_.size(); ++i) {
    f += fwd_[i].total().seconds();
    b += input_[i].total().seconds();
    w += weight_[i].total().seconds();
  }
  if (f <= 0.0 || b <= 0.0 || w <= 0.0) return {};
  return UnitTimes{1.0, b / f, w / f};
}

Time UnitCosts::merged_pair_host_wait(const UnitCost& f, const UnitCost& b, Time merged_gpu) const {
  const Time own = f.host_wait + b.host_wait;
  if (train_.host_launch_cost <= Time::zero()) return own;  // captured in CUDA graphs: no eager host
  // DeepSeek's DualPipe is its own framework's schedule, not Megatron-Core's nodes: its host issues the launches.
  const bool nodes = plan_.schedule != PipelineSchedule::dualpipe;
  const FrameworkHostCosts& c = train_.host_costs;
  const Time per_node = host_scaled(f.issue.synced() || b.issue.synced() ? c.schedule_node_host_synced : c.schedule_node_host);
  const Time host = f.host + b.host + (nodes ? per_node * (f.schedule_nodes + b.schedule_nodes) : Time::zero());
  return std::max(own, host - merged_gpu);
}

Time UnitCosts::FlexDispatch::time(const Op& op, const CollectiveEstimate& estimate) const {
  const double token = op.bytes.value() / top_k;  // one routed token's bytes (times the capacity or imbalance)
  Time inter = Time::zero(), intra = Time::zero();
  if (nodes > 1 && !rail_groups.empty()) {
    // A collective's buffer includes the rank's own share (1/n of it stays): what leaves is the remote sends.
    inter = estimate({CollectiveKind::all_to_all, Bytes{token * fanout.remote_nodes * nodes / (nodes - 1.0)},
                      rail_groups, op.name + " (inter-node, deduplicated)"});
  }
  if (!node_groups.empty()) {
    intra = estimate({CollectiveKind::all_to_all, Bytes{token * fanout.gpus}, node_groups, op.name + " (NVLink fan-out)"});
  }
  return std::max(inter, intra);
}

namespace {

/// Work rerun forward before a backward: `compute` of the forward's kernels (at the forward's mean clock) and
/// `ep` of its all-to-alls, with `flops` of hardware FLOPs.
UnitCost rerun_part(const UnitCost& forward, Time compute, Time ep, Flops flops) {
  UnitCost r;
  r.compute = compute;
  r.ep_comm = ep;
  r.hardware_flops = flops;
  r.clock_seconds = forward.compute > Time::zero()
                        ? compute.seconds() * forward.clock_seconds / forward.compute.seconds()
                        : 0.0;
  append_phase(r.phases, {compute, false});
  append_phase(r.phases, {ep, true});
  return r;
}

/// Adds `rerun` to backward `b`, its phases first (the rerun forward runs before the backward's own work).
void prepend_rerun(UnitCost& b, const UnitCost& rerun) {
  b.compute += rerun.compute;
  b.memory_kernels += rerun.memory_kernels;
  b.tp_comm += rerun.tp_comm;
  b.cp_comm += rerun.cp_comm;
  b.ep_comm += rerun.ep_comm;
  b.host_wait += rerun.host_wait;
  b.hardware_flops += rerun.hardware_flops;
  b.clock_seconds += rerun.clock_seconds;
  std::vector<Phase> phases = rerun.phases;
  for (const Phase& ph : b.phases) append_phase(phases, ph);
  b.phases = std::move(phases);
}

}  // namespace

UnitCosts::UnitCosts(const ParallelPlan& p, const TrainingConfig& t, const ComputeCostModel& compute,
                     const FixedUnitTimes& times)
    : compute_(compute), pp_(p.pp), v_(p.chunks()), sm_count_(0), plan_(p), train_(t) {
  const auto unit = [](Time time) {
    UnitCost u;
    u.compute = time;
    append_phase(u.phases, {time, false});
    return u;
  };
  const std::size_t n = static_cast<std::size_t>(p.pp * p.chunks());
  fwd_.assign(n, unit(times.forward));
  bwd_.assign(n, unit(times.input_grad + times.weight_grad));
  input_.assign(n, unit(times.input_grad));
  weight_.assign(n, unit(times.weight_grad));
  params_.assign(n, 0.0);
  optimizer_.assign(static_cast<std::size_t>(p.pp), times.optimizer);
}

UnitCosts::UnitCosts(const ModelSpec& m, const ParallelPlan& p, const TrainingConfig& t,
                     const ComputeCostModel& compute, const CollectiveEstimate& estimate, int sm_count, int node_gpus,
                     Time host_linear_forward)
    : compute_(compute), pp_(p.pp), sm_count_(sm_count), plan_(p), train_(t) {
  const Time measured = t.host_costs.calibration_host_linear_forward;
  host_speed_ = host_linear_forward > Time::zero() && measured > Time::zero()
                    ? host_linear_forward.seconds() / measured.seconds()
                    : 1.0;
  host_scale_ = t.framework_host_factor * host_speed_;
  const RankLayout layout(p);
  tp_group_ = GroupList{layout.tp_groups(0).front()};
  cp_groups_ = GroupList{layout.cp_groups(0)};
  ep_groups_ = GroupList{layout.ep_groups(0)};
  if (t.moe_dispatcher == MoeDispatcher::flex && m.is_moe() && p.ep > 1) {
    // Split every EP group of a stage by node (the NVLink fan-out) and by index within its node (the rails).
    FlexDispatch f;
    f.top_k = m.top_k;
    for (const auto& group : ep_groups_) {
      std::map<int, std::vector<int>> by_node;
      for (int r : group) by_node[r / std::max(1, node_gpus)].push_back(r);
      f.nodes = static_cast<int>(by_node.size());
      f.node_ranks = static_cast<int>(group.size()) / f.nodes;
      std::size_t widest = 0;
      for (const auto& [node, ranks] : by_node) widest = std::max(widest, ranks.size());
      for (std::size_t j = 0; j < widest; ++j) {  // the j-th rank of every node that has one (a group may be uneven)
        std::vector<int> rail;
        for (const auto& [node, ranks] : by_node) {
          if (j < ranks.size()) rail.push_back(ranks[j]);
        }
        if (rail.size() > 1) f.rail_groups.push_back(std::move(rail));
      }
      for (auto& [node, ranks] : by_node) {
        if (ranks.size() > 1) f.node_groups.push_back(std::move(ranks));
      }
    }
    f.fanout = dispatch_fanout(m, p.ep, f.nodes);
    flex_ = std::move(f);
  }
  const int v = p.chunks();
  const std::size_t n = static_cast<std::size_t>(p.pp * v);
  fwd_.resize(n);
  bwd_.resize(n);
  if (splits_backward(p.schedule)) {
    input_.resize(n);
    weight_.resize(n);
  }
  params_.resize(n);

  // A part's forward and backward; where the schedule splits the backward, also its input-gradient part (B: every
  // backward op but the weight-gradient GEMMs) and its weight-gradient part (W), each priced as a unit of its own.
  struct PartCosts {
    UnitCost first, second, input, weight;
  };
  const bool split = splits_backward(p.schedule);
  auto both = [&](LayerPart part, bool windowed = false) {
    const auto f = forward_ops(part, m, p, t, windowed);
    const auto b = backward_ops(f);
    PartCosts c{cost_of(f, compute, estimate), cost_of(b, compute, estimate), {}, {}};
    if (split) {
      std::vector<Op> input, weight;
      for (const Op& op : b) (op.weight_gradient ? weight : input).push_back(op);
      c.input = cost_of(input, compute, estimate);
      c.weight = cost_of(weight, compute, estimate);
    }
    return c;
  };
  // One price per kind of layer the model has, and per attention span where layers attend within a sliding
  // window (GPT-OSS: every other one).
  std::map<std::pair<LayerKind, bool>, PartCosts> kinds;
  for (int l = 0; l < m.layers; ++l) {
    const std::pair key{m.layer_kind(l), m.windowed_layer(l)};
    if (!kinds.contains(key)) kinds.emplace(key, both(layer_part(key.first), key.second));
  }
  const auto layer_cost = [&](int l) { return &kinds.at({m.layer_kind(l), m.windowed_layer(l)}); };
  const auto embed = both(LayerPart::embedding);
  const auto output = both(LayerPart::output);
  const auto mtp_head = m.mtp_layers > 0 ? both(LayerPart::mtp_head) : output;

  for (int c = 0; c < v; ++c) {
    for (int s = 0; s < p.pp; ++s) {
      const int vs = p.piece(s, c);
      // The unit's parts in the order the host issues them forward (the backward runs them in reverse); full
      // recompute reruns the transformer layers among them, not the embedding or the heads.
      struct Part {
        const PartCosts* cost;
        bool layer;
        int nodes;  // Megatron-Core schedule nodes (model_chunk_schedule_plan.py): attn, post_attn, moe_dispatch,
                    // mlp, moe_combine for an MoE layer, attn and mlp for a dense one, one per loss head
      };
      const auto layer_entry = [&](int l) {
        // Megatron-Core's schedule nodes: attn and mlp for a transformer layer (post_attn, moe_dispatch and
        // moe_combine more for an MoE one); a hybrid model's single block is one node.
        const LayerKind k = m.layer_kind(l);
        const int nodes = k == LayerKind::moe ? 5 : k == LayerKind::dense ? 2 : k == LayerKind::moe_mlp ? 4 : 1;
        return Part{layer_cost(l), true, nodes};
      };
      std::vector<Part> parts;
      if (vs == 0) parts.push_back({&embed, false, 0});
      const auto [first, last] = virtual_stage_layers(m, p, vs);
      for (int l = first; l < last; ++l) parts.push_back(layer_entry(l));
      if (vs == p.pieces() - 1) {
        parts.push_back({&output, false, 1});
        // Multi-token prediction modules: each a layer of the model's last kind plus its head (layer_ops.hpp).
        for (int d = 0; d < m.mtp_layers; ++d) {
          parts.push_back(layer_entry(m.layers - 1));
          parts.push_back({&mtp_head, false, 1});
        }
      }
      UnitCost f, b, layers_forward, bin, bw;
      int nodes = 1;  // the chunk's pre_process node
      for (const Part& q : parts) {
        f += q.cost->first;
        if (q.layer) layers_forward += q.cost->first;
        nodes += q.nodes;
      }
      f.schedule_nodes = b.schedule_nodes = bin.schedule_nodes = bw.schedule_nodes = nodes;
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {  // backward runs them in reverse
        b += it->cost->second;
        bin += it->cost->input;
        bw += it->cost->weight;
      }
      if (t.host_launch_cost > Time::zero()) {
        // Composed in issue order, so a GPU-bound part lends the host a lead for the launch-bound parts after it.
        HostIssue fi, bi, li, ii, wi;
        for (const Part& q : parts) {
          fi = fi.then(q.cost->first.issue);
          if (q.layer) li = li.then(q.cost->first.issue);
        }
        for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
          bi = bi.then(it->cost->second.issue);
          ii = ii.then(it->cost->input.issue);
          wi = wi.then(it->cost->weight.issue);
        }
        // Full recompute issues the layers' forward again just before the backward: one run, in that order.
        if (t.recompute == Recompute::full) {
          bi = li.then(bi);
          ii = li.then(ii);
        }
        f.host_wait = fi.wait();
        b.host_wait = bi.wait();
        bin.host_wait = ii.wait();
        bw.host_wait = wi.wait();
        f.host = fi.host();
        b.host = bi.host();
        bin.host = ii.host();
        bw.host = wi.host();
        f.issue = fi;
        b.issue = bi;
        bin.issue = ii;
        bw.issue = wi;
      }
      // Recompute reruns forward work just before the backward that needs it: the chunk's transformer layers
      // under full recompute (Megatron-LM's --recompute-granularity full), the unfused attention core under
      // selective, or the named modules' forward ops (and a recomputed MoE block's all-to-alls).
      // A split backward reruns them before its B (the W reuses what the B recomputed).
      if (t.recompute == Recompute::full) {
        UnitCost rerun = layers_forward;
        rerun.hardware_flops = layers_forward.model_flops;
        rerun.host_wait = Time::zero();  // the backward's issue (above) runs the rerun's launches first
        prepend_rerun(b, rerun);
        prepend_rerun(bin, rerun);
      }
      if (t.recompute == Recompute::selective && layers_forward.selective_recompute > Time::zero()) {
        const UnitCost rerun = rerun_part(layers_forward, layers_forward.selective_recompute, Time::zero(),
                                          layers_forward.selective_flops);
        prepend_rerun(b, rerun);
        prepend_rerun(bin, rerun);
      }
      if (t.recompute != Recompute::full &&
          layers_forward.module_recompute + layers_forward.module_recompute_ep > Time::zero()) {
        const UnitCost rerun = rerun_part(layers_forward, layers_forward.module_recompute,
                                          layers_forward.module_recompute_ep, layers_forward.module_flops);
        prepend_rerun(b, rerun);
        prepend_rerun(bin, rerun);
      }
      fwd_[index(s, c)] = f;
      bwd_[index(s, c)] = b;
      if (split) {
        input_[index(s, c)] = bin;
        weight_[index(s, c)] = bw;
      }
    }
  }
  v_ = v;
  if (merges_forward_backward(m, p, t)) {
    // Every (forward chunk, backward chunk) pair a stage may run merged, with compute slowed while the
    // all-to-all holds its SMs (measured on the H200, hardware/overlap_contention.hpp).
    const double slowdown = overlap_gemm_slowdown(t.overlap.ep_comm_sms, sm_count);
    merged_.resize(n * static_cast<std::size_t>(v));
    merged_wait_.resize(n * static_cast<std::size_t>(v));
    for (int s = 0; s < p.pp; ++s) {
      for (int cf = 0; cf < v; ++cf) {
        for (int cb = 0; cb < v; ++cb) {
          const Time gpu = merged_time(fwd_[index(s, cf)].phases, bwd_[index(s, cb)].phases, slowdown);
          merged_[pair_index(s, cf, cb)] = gpu;
          merged_wait_[pair_index(s, cf, cb)] = merged_pair_host_wait(fwd_[index(s, cf)], bwd_[index(s, cb)], gpu);
        }
      }
    }
  }
  // Chunk parameters: split the stage's parameters evenly over its chunks, embeddings to their chunk.
  for (int s = 0; s < p.pp; ++s) {
    const double stage_params = params_per_gpu(m, p, s);
    for (int c = 0; c < v; ++c) params_[index(s, c)] = stage_params / v;
    // Adam step over the GPU's optimizer shard: reads the master weights, m and v and the fp32 gradient, writes
    // the master weights, m and v and the 16-bit working copy: 30 bytes per parameter with fp32 states. In fp32
    // training the weights are their own master: read and write them, m and v, and read the gradient (28).
    const double shard = p.zero_stage >= 1 ? static_cast<double>(p.dp) * p.cp : 1.0;
    const double state = optimizer_state_bytes(t);
    const bool fp32 = t.precision == DType::fp32 || t.precision == DType::tf32;
    const double step_bytes = fp32 ? 2.0 * (state + 4.0) + 4.0 : 2.0 * state + 4.0 + 2.0;
    Time step_end = compute.memory_bound(Bytes{stage_params / shard * step_bytes});
    if (const double copies = cached_weight_copy_bytes(t); copies > 0.0) {
      // Transformer Engine casts each weight to fp8 or NVFP4 (and its transpose) once per step, on the first
      // micro-batch, and reuses it for the rest: read 2 bytes, write the two quantised copies, for every parameter
      // the GPU holds.
      step_end += compute.memory_bound(Bytes{stage_params * (2.0 + copies)});
    }
    optimizer_.push_back(step_end);
  }
}

}  // namespace cs
