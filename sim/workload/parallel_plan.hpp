// How a training job is laid out on the GPUs and what it computes each step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/hardware/dtype.hpp"
#include "sim/workload/framework_costs.hpp"
#include "sim/workload/model_spec.hpp"

namespace cs {

class InputNode;

/// DualPipe (DeepSeek-V3, arXiv 2412.19437 Sec. 3.2.1): micro-batches enter from both ends of the pipeline; each
/// rank holds two model pieces, one per direction (pipeline_schedule.hpp).
/// zb_h1, zb_h2: zero-bubble schedules (Qi et al., ICLR 2024): the backward split into the input gradient (B) and
/// the weight gradient (W), W deferred into the bubbles. zb_v, dualpipe_v: V-shaped, two pieces per rank (piece s
/// and 2pp-1-s), the backward split the same way ("Pipeline Parallelism with Controllable Memory", NeurIPS 2024;
/// deepseek-ai/DualPipe's DualPipeV). pipedream_2bw (Narayanan et al., ICML 2021) and pipedream_async (PipeDream,
/// SOSP 2019): 1F1B without a pipeline flush, stale weights stashed (pipeline_schedule.hpp).
enum class PipelineSchedule { gpipe, one_f_one_b, interleaved, dualpipe, zb_h1, zb_h2, zb_v, dualpipe_v, pipedream_2bw, pipedream_async };

/// V-shaped schedules: rank s holds piece s (chunk 0) and piece 2pp-1-s (chunk 1), so a micro-batch goes down the
/// ranks and back up, and rank 0 holds both the embedding and the loss.
[[nodiscard]] constexpr bool v_shaped(PipelineSchedule s) noexcept {
  return s == PipelineSchedule::zb_v || s == PipelineSchedule::dualpipe_v;
}
/// Schedules that run the weight gradient (W) as a unit of its own, apart from the input gradient (B).
[[nodiscard]] constexpr bool splits_backward(PipelineSchedule s) noexcept {
  return s == PipelineSchedule::zb_h1 || s == PipelineSchedule::zb_h2 || v_shaped(s);
}
/// Schedules without a pipeline flush: the next step's micro-batches enter while this step's drain, and the
/// weights are updated under them (the step is the pipeline's steady-state period).
[[nodiscard]] constexpr bool flushes(PipelineSchedule s) noexcept {
  return s != PipelineSchedule::pipedream_2bw && s != PipelineSchedule::pipedream_async;
}
/// Zero-bubble schedules with the optimizer's post-update validation (Qi et al. Sec. 4): each stage steps its
/// optimizer as soon as its own gradients are reduced and the global checks (gradient norm, NaN/Inf) arrive after,
/// rolling the step back in the rare case they fail; a stage starts its next step without waiting for the others.
[[nodiscard]] constexpr bool validates_after_update(PipelineSchedule s) noexcept {
  return s == PipelineSchedule::zb_h1 || s == PipelineSchedule::zb_h2 || s == PipelineSchedule::zb_v;
}
enum class Recompute { none, selective, full };

enum class Placement { megatron, optimise };

struct ParallelPlan {
  int tp = 1;                  ///< tensor parallel
  int pp = 1;                  ///< pipeline parallel
  int dp = 1;                  ///< data parallel (replicas); kAutoDp until a scenario's `dp: auto` is resolved
  int cp = 1;                  ///< context parallel (ring attention)
  int ep = 1;                  ///< expert parallel (within the data-parallel group, Megatron-style)
  int virtual_stages = 1;      ///< model chunks per pipeline rank (interleaved 1F1B)
  bool sequence_parallel = false;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  int zero_stage = 0;          ///< 0: none, 1: optimizer states sharded (distributed optimizer), 2: +grads, 3: +params (FSDP)
  /// torch.nn.DataParallel instead of DistributedDataParallel: one process drives every GPU of a node; gradients
  /// are reduced to GPU 0 after the backward pass (no overlap) and the parameters broadcast from it every step.
  bool single_process_dp = false;
  /// Expert tensor parallelism (Megatron-Core expert_tensor_parallel_size): each expert's FFN is split over
  /// this many ranks; 0 means the same as tp (Megatron-Core's default). MoE parallel folding lays the
  /// expert_tp x ep expert groups over a stage's tp x cp x dp ranks independently of the attention layout
  /// (Liu et al. 2025, "MoE Parallel Folding"), so ep may exceed dp*cp.
  int expert_tp = 0;
  /// Megatron-Core account_for_embedding_in_pipeline_split: the input embedding counts as one layer of the
  /// first virtual stage, which then holds one transformer layer fewer (NeMo's Llama 3.1 405B: 126 layers on
  /// PP 8 x VPP 8).
  bool embedding_in_split = false;
  /// Megatron-Core account_for_loss_in_pipeline_split: the output layer and loss count as one layer of the last
  /// virtual stage.
  bool loss_in_split = false;
  /// Megatron-Core num_layers_in_first_pipeline_stage / num_layers_in_last_pipeline_stage: transformer layers of
  /// the first and last pipeline rank (over all its virtual chunks); -1 splits evenly. The middle ranks share
  /// the rest evenly.
  int first_stage_layers = -1;
  int last_stage_layers = -1;
  /// Where the ranks go: megatron (rank r on GPU r, the nodes in the cluster's order) or optimise (node positions
  /// searched to cut traffic-weighted fabric cost, kept only when the full simulation is faster; docs/design.md).
  Placement placement = Placement::megatron;

  /// `parallelism.dp: auto` (or the key left out) before the scenario resolves it: cluster.gpus / (tp*pp*cp).
  static constexpr int kAutoDp = 0;

  [[nodiscard]] int gpus() const noexcept { return tp * pp * dp * cp; }
  /// Model chunks each pipeline rank holds and runs: the virtual stages of interleaved 1F1B, two under DualPipe
  /// (one per direction), else one.
  [[nodiscard]] int chunks() const noexcept {
    if (schedule == PipelineSchedule::interleaved) return virtual_stages;
    return schedule == PipelineSchedule::dualpipe || v_shaped(schedule) ? 2 : 1;
  }
  /// Pieces the model's layers are split into along the pipeline: pp x virtual stages under interleaving, 2 pp in a
  /// V, else pp (DualPipe holds every piece twice: piece s on rank s for one direction and on rank pp-1-s for the
  /// other).
  [[nodiscard]] int pieces() const noexcept {
    if (schedule == PipelineSchedule::interleaved) return pp * virtual_stages;
    return v_shaped(schedule) ? 2 * pp : pp;
  }
  /// The piece chunk `chunk` of pipeline rank `stage` holds.
  [[nodiscard]] int piece(int stage, int chunk) const noexcept {
    if (schedule == PipelineSchedule::dualpipe) return chunk == 0 ? stage : pp - 1 - stage;
    if (v_shaped(schedule)) return chunk == 0 ? stage : 2 * pp - 1 - stage;
    return chunk * pp + stage;
  }
  /// Where piece `piece` runs for a micro-batch of direction (DualPipe) or chunk sequence `chunk_of_direction`:
  /// {stage, chunk}. Under interleaving a micro-batch moves to the next chunk after the last stage; under
  /// DualPipe it keeps its chunk (its direction) and the stages run backwards for chunk 1.
  [[nodiscard]] std::pair<int, int> place(int piece, int chunk_of_direction) const noexcept {
    if (schedule == PipelineSchedule::dualpipe) return chunk_of_direction == 0 ? std::pair{piece, 0} : std::pair{pp - 1 - piece, 1};
    if (v_shaped(schedule)) return piece < pp ? std::pair{piece, 0} : std::pair{2 * pp - 1 - piece, 1};
    return {piece % pp, piece / pp};
  }
  /// The expert tensor-parallel size in effect.
  [[nodiscard]] int etp() const noexcept { return expert_tp > 0 ? expert_tp : tp; }
};

struct Overlap {
  bool grad_reduce = true;     ///< DP gradient reduction runs in buckets under the backward pass
  bool param_gather = true;    ///< ZeRO/FSDP parameter all-gather runs ahead under compute
  bool tp_comm = false;        ///< TP collectives overlapped with GEMMs (userbuffers-style)
  /// Pipeline sends of an interleaved, zero-bubble, V-shaped or PipeDream schedule run beside compute (Megatron-Core's
  /// overlap_p2p_comm, which needs virtual stages; MegaScale's decoupled send and receive; the zero-bubble runtime's
  /// own send nodes). Without it, and under GPipe and 1F1B, a stage's compute stream waits for each unit's send to
  /// complete before its next unit: Megatron's batched isend/irecv followed by a device synchronise
  /// (batch_p2p_comm, batch_p2p_sync), and the 1F1B schedule's waits on every send and receive (wait_on_reqs).
  /// DualPipe's always run beside compute.
  bool pp_comm = true;
  /// SMs the overlapped TP collectives occupy, slowing the GEMM they hide behind by comm_sms / sm_count while
  /// they run (Transformer Engine's userbuffers default: 16 SMs for reduce-scatter overlap).
  int tp_comm_sms = 16;
  /// MoE dispatch and combine all-to-alls of one micro-batch overlapped with the compute of another: Megatron-Core's
  /// merged forward-backward 1F1B (overlap_moe_expert_parallel_comm). Each forward runs together with the
  /// backward that follows it, on a compute and a communication stream (StepReplay, UnitCosts::merged).
  bool ep_comm = false;
  /// SMs the overlapped all-to-all holds while compute runs beside it (DeepEP: 20, arXiv 2603.07685 Sec. 4.2.3).
  int ep_comm_sms = 20;
};

/// Gradient compression for data-parallel traffic (DDP communication hooks): top-k sparsification sends
/// `ratio` of the gradient as (value, index) pairs with an all-gather; PowerSGD sends low-rank factors of
/// `ratio` of the gradient's size with an all-reduce. Both add bandwidth-bound passes over the gradients.
enum class GradCompression { none, topk, powersgd };

/// How attention is computed: one fused flash-style kernel, FlashAttention-2 (PyTorch's SDPA, flash-attn; since
/// 2022-23 in Megatron-LM and NeMo) or cuDNN's fused attention (what Transformer Engine runs on Hopper and later
/// GPUs: TE prefers its FusedAttention to FlashAttention there), or Megatron-LM's earlier unfused path: a batched
/// score GEMM, a fused scale-mask-softmax kernel, dropout, and a batched GEMM with V, materialising the s x s
/// scores.
enum class AttentionKernel { flash, cudnn, unfused };

/// How Transformer Engine scales fp8 tensors: delayed scaling (amax from a history of earlier steps, the
/// default through 2024) or current scaling ("FP8-CS": each tensor's amax computed just before its cast, one
/// more read of it).
enum class Fp8Recipe { delayed, current };


/// How a grouped operator (one GEMM, or one cast, per local expert) issues its kernels.
///   native: a C++ loop (Transformer Engine): each further kernel costs the host the framework's
///           native_gemm_launch or native_kernel_launch (FrameworkHostCosts), and the GPU runs them back to back (no eager gap between them);
///   python: a Python loop (an eager model that loops over its experts): every kernel is an operator of its own,
///           with the host cost and the kernel gap of one.
enum class GroupedLaunch { native, python };

/// How the framework's host work per launch is known (TrainingConfig::framework_host_factor):
///   per_kind: measured by kind of launch (run 15, Megatron-Core 0.15 on Transformer Engine 2.9): an operator's
///             launch at the factor, plain PyTorch operators at eager PyTorch's cost, a grouped GEMM's further
///             launches at native_gemm_launch times the factor up to grouped_gemm_launch, further small
///             kernels at native_kernel_launch (FrameworkHostCosts);
///   uniform:  one ratio for every launch (TE issue #2053's module ratio): every cost times the factor.
enum class HostWork { per_kind, uniform };

/// The MoE token dispatcher: Megatron-Core's alltoall (NCCL all-to-all of every routed copy) or a flex one
/// (DeepEP / HybridEP: each token crosses to a remote node once, then NVLink fans it out; moe_dispatch.hpp).
enum class MoeDispatcher { alltoall, flex };

/// Megatron-Core's fine-grained recompute (recompute_granularity selective with recompute_modules): the
/// modules whose forward is rerun before their backward instead of keeping their activations.
struct RecomputeModules {
  bool layernorm = false;       ///< the norms before attention and the FFN: their outputs (GEMM inputs) not kept
  bool mla_up_proj = false;     ///< MLA's query and key/value up-projections: Q, K, V not kept
  bool mlp = false;             ///< a dense layer's FFN (inside its TP region)
  bool moe_act = false;         ///< the routed experts' activation function: its output (the down GEMM's input)
  bool moe = false;             ///< the whole MoE block: router, dispatch, experts, combine
  bool shared_experts = false;  ///< the shared experts
  enum Bit : unsigned { kLayernorm = 1, kMlaUpProj = 2, kMlp = 4, kMoeAct = 8, kMoe = 16, kSharedExperts = 32 };
  [[nodiscard]] unsigned bits() const noexcept {
    return (layernorm ? kLayernorm : 0u) | (mla_up_proj ? kMlaUpProj : 0u) | (mlp ? kMlp : 0u) |
           (moe_act ? kMoeAct : 0u) | (moe ? kMoe : 0u) | (shared_experts ? kSharedExperts : 0u);
  }
  /// The modules set, by their Megatron-Core names, comma-separated ("layernorm, moe_act"); empty when none.
  [[nodiscard]] std::string names() const {
    std::string out;
    for (const auto& [on, name] : {std::pair{layernorm, "layernorm"}, {mla_up_proj, "mla_up_proj"}, {mlp, "mlp"},
                                   {moe_act, "moe_act"}, {moe, "moe"}, {shared_experts, "shared_experts"}}) {
      if (on) out += (out.empty() ? "" : ", ") + std::string(name);
    }
    return out;
  }
};

/// Megatron-Core's per-module CUDA graphs (cuda_graph_impl transformer_engine with cuda_graph_modules / scope): the
/// modules whose forward and backward replay as captured graphs, the rest of the layer launching eagerly.
struct CudaGraphModules {
  bool attn = false;            ///< the attention block: input norm, self-attention, its residual add
  bool mlp = false;             ///< a dense layer's MLP block with its norm
  bool moe = false;             ///< the whole MoE block (token dropping: no host synchronisation inside)
  bool moe_router = false;      ///< the MoE block's norm and router (and unoverlapped shared experts)
  bool moe_preprocess = false;  ///< the dispatcher's preprocessing (token counts): too small to price
  bool mamba = false;           ///< the Mamba mixer block
  enum Bit : unsigned { kAttn = 1, kMlp = 2, kMoe = 4, kMoeRouter = 8, kMamba = 16 };
  [[nodiscard]] unsigned bits() const noexcept {
    return (attn ? kAttn : 0u) | (mlp ? kMlp : 0u) | (moe ? kMoe : 0u) | (moe_router ? kMoeRouter : 0u) |
           (mamba ? kMamba : 0u);
  }
  /// The modules set, by their Megatron-Core names, comma-separated ("attn, moe_router"); empty when none.
  [[nodiscard]] std::string names() const {
    std::string out;
    for (const auto& [on, name] : {std::pair{attn, "attn"}, {mlp, "mlp"}, {moe, "moe"}, {moe_router, "moe_router"},
                                   {moe_preprocess, "moe_preprocess"}, {mamba, "mamba"}}) {
      if (on) out += (out.empty() ? "" : ", ") + std::string(name);
    }
    return out;
  }
};

struct TrainingConfig {
  int micro_batch = 1;              ///< sequences per micro-batch
  std::int64_t global_batch = 1;    ///< sequences per optimizer step
  int seq_len = 0;                  ///< tokens per sequence
  DType precision = DType::bf16;    ///< GEMM precision; fp8 keeps attention and optimizer in bf16/fp32
  Recompute recompute = Recompute::none;
  /// Modules recomputed besides `recompute` (none with full recompute, which reruns every layer anyway).
  RecomputeModules recompute_modules;
  AttentionKernel attention = AttentionKernel::flash;
  Overlap overlap;
  std::optional<double> token_budget;  ///< tokens to train on, for time to train
  std::int64_t grad_bucket_bytes = 40'000'000 * 4;  ///< DP bucket size (Megatron default: 40M fp32 elements)
  GradCompression compression = GradCompression::none;
  double compression_ratio = 0.01;  ///< fraction of gradient elements (top-k) or bytes (PowerSGD) sent
  Fp8Recipe fp8_recipe = Fp8Recipe::delayed;  ///< with precision fp8
  /// Weights stored in fp8 (Transformer Engine fp8_model_init / NeMo "fp8 params"): the working copy is 1 byte
  /// per parameter and no per-step weight cast is needed.
  bool fp8_params = false;
  /// Attention itself in fp8 (Transformer Engine's fp8_dot_product_attention) under an fp8 or MXFP8 recipe: priced at
  /// the profile's measured speed-up over 16-bit (DeviceProfile::attention_fp8; 16-bit where it has none).
  bool fp8_attention = false;
  /// MoE routing: tokens the busiest expert-parallel rank receives over the balanced share (1: balanced, as
  /// benchmarks that force-balance routing run; dropless routing with an auxiliary loss sits above 1).
  double moe_load_imbalance = 1.0;
  /// Token dropping (Megatron-Core moe_expert_capacity_factor with moe_pad_expert_input_to_capacity): each expert
  /// takes at most this many times its balanced share of the copies a rank routes, drops the rest, and pads its
  /// input to that capacity, so every rank sends and computes exactly the capacity whatever the routing, and the
  /// split sizes are known in advance (no host synchronisation). 0: dropless.
  double moe_capacity_factor = 0.0;
  /// Rows of the expert GEMMs and of the all-to-all over the balanced share: the capacity when tokens are
  /// dropped, else the busiest rank's load.
  [[nodiscard]] double moe_rows_factor() const noexcept {
    return moe_capacity_factor > 0.0 ? moe_capacity_factor : moe_load_imbalance;
  }
  /// Gradients accumulated and reduced in fp32 (Megatron-LM's default for bf16); NeMo's performance recipes
  /// and MLPerf reduce them in bf16, halving the gradient buffer.
  bool grad_reduce_in_fp32 = true;
  /// What the optimizer keeps per parameter in mixed precision: Adam's two moments and the master weights, each in
  /// fp32 (Megatron-LM's default: 12 bytes) or bf16 (DeepSeek-V3's moments; Megatron-Core's precision-aware
  /// optimizer, --exp-avg-dtype / --main-params-dtype; NeMo's distributed_fused_adam with dtype bf16).
  DType optimizer_moments = DType::fp32;
  DType master_weights = DType::fp32;
  /// Idle GPU time an eager framework (PyTorch without CUDA graphs) leaves after each operator of layer_ops: the
  /// host issuing kernels just in time, allocator and bookkeeping. 0: none (CUDA graphs, or not modelled).
  Time kernel_gap = Time::zero();
  /// Host time per operator launch when the framework launches eagerly: the GPU cannot start an operator before
  /// the host has issued it, so a unit whose launches take longer than its kernels is host-bound, and a host
  /// synchronisation (Op::host_sync) drains the queue the host had built up. 0: the host never binds.
  Time host_launch_cost = Time::zero();
  /// Host work per launch of the framework against eager PyTorch's, whose costs host_launch_cost and the
  /// native-loop costs are (1); Transformer Engine's modules more (profiles/frameworks/megatron-core-te-*.yaml).
  double framework_host_factor = 1.0;
  HostWork host_work = HostWork::per_kind;
  /// The framework profile these launch costs came from (profiles/frameworks/NAME.yaml, training.framework), and
  /// its other host costs: grouped operators' further launches, merged-schedule nodes, the measuring hosts.
  std::string framework;
  FrameworkHostCosts host_costs;
  /// Modules captured in CUDA graphs while the rest launches eagerly: their operators cost the host one graph
  /// launch per captured stretch and leave no eager gap.
  CudaGraphModules cuda_graph_modules;
  /// The dropless MoE dispatcher copies the per-expert token counts to the host before the all-to-all
  /// (Megatron-Core's alltoall dispatcher); false with a sync-free dispatcher. Token dropping (moe_capacity_factor)
  /// never synchronises.
  bool moe_host_sync = true;
  /// How grouped operators launch their per-expert kernels (only where the host is modelled: host_launch_cost > 0).
  GroupedLaunch grouped_launch = GroupedLaunch::native;
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;
  /// Token permutation and unpermutation in fused kernels (Megatron-Core moe_permute_fusion, Transformer
  /// Engine's moe_permute / moe_unpermute: what Megatron-Bridge's recipes set). False: PyTorch's own operators
  /// (Megatron-Core's default until a recipe turns it on), whose sum of a token's copies and the permutation's
  /// gradient are atomic scatter-adds (kAtomicScatterBytesPerElement).
  bool moe_permute_fusion = true;
  /// Each expert's rows arrive aligned to the quantised GEMM's row alignment: the router pads the counts
  /// (Megatron-Core moe_router_padding_for_fp8, later moe_router_padding_for_quantization) or the dispatch aligns
  /// them (DeepEP's expert_alignment, as DeepSeek's framework runs it), so TEGroupedMLP's Fp8Padding /
  /// Fp8Unpadding copies are skipped. False (Megatron-Core's default): under fp8 or fp4
  /// with dropless routing the grouped MLP copies its rows into padded buffers and back (layer_ops.cpp).
  bool moe_router_padding = false;

  /// Micro-batches per pipeline per step = global_batch / (micro_batch * dp).
  [[nodiscard]] std::int64_t micro_batches(const ParallelPlan& p) const noexcept {
    return global_batch / (static_cast<std::int64_t>(micro_batch) * p.dp);
  }
};

/// Bytes per parameter that the data-parallel gradient reduction sends: fp32 when the training is in fp32 or
/// reduces gradients in fp32 (grad_reduce_in_fp32, Megatron-LM's default), else the 16-bit gradient.
[[nodiscard]] double reduced_gradient_bytes(const TrainingConfig& t) noexcept;
/// Bytes per parameter the optimizer keeps (before ZeRO sharding): Adam's m and v, plus the master weights in mixed
/// precision (fp32 training updates its working weights: 8).
[[nodiscard]] double optimizer_state_bytes(const TrainingConfig& t) noexcept;
/// Bytes per parameter of the working weights that ZeRO / FSDP all-gathers (or DataParallel broadcasts): 4 in
/// fp32 training, 1 with fp8 parameters, else the 16-bit copy.
[[nodiscard]] double gathered_param_bytes(const TrainingConfig& t) noexcept;
/// Bytes per parameter of the quantised copy and its transpose that Transformer Engine casts once per step and
/// caches across micro-batches when a quantised recipe keeps 16-bit parameters (2 for fp8, 1.125 for NVFP4);
/// 0 where the parameters are stored quantised or nothing is quantised.
[[nodiscard]] double cached_weight_copy_bytes(const TrainingConfig& t) noexcept;

/// Transformer layers of each virtual pipeline stage (index vs = c*pp + s for chunk c of stage s), in order.
/// With first/last-stage counts, those ranks hold them (spread over their chunks) and the middle ranks share
/// the rest; otherwise layers, plus the embedding and the loss where the plan counts them as layers, are spread
/// as evenly as possible (later stages take one more), and the counted embedding and loss then take their
/// place in the first and last virtual stage. A stage may hold no transformer layer (30 layers on PP 4 x VPP 8
/// with both counted: the first chunk is the embedding alone). Empty when the split is impossible.
[[nodiscard]] std::vector<int> virtual_stage_layer_counts(const ModelSpec& m, const ParallelPlan& p);
/// The layers [first, last) of virtual pipeline stage `vs`.
[[nodiscard]] std::pair<int, int> virtual_stage_layers(const ModelSpec& m, const ParallelPlan& p, int vs);

/// Reads the `parallelism:` section. Throws InputError on bad values.
[[nodiscard]] ParallelPlan parse_parallel_plan(const InputNode& section);
/// Reads the `training:` section; `model` supplies the default sequence length.
[[nodiscard]] TrainingConfig parse_training_config(const InputNode& section, const ModelSpec& model);
/// Checks that plan, training and model fit together on `gpus` GPUs (divisibility, batch sizes, schedule).
/// Throws InputError at `where` naming the offending key.
void check_plan(const SourceLocation& where, const ModelSpec& model, const ParallelPlan& plan, const TrainingConfig& train,
                int gpus, int gpus_per_node);

[[nodiscard]] std::string to_string(PipelineSchedule s);
[[nodiscard]] std::string to_string(Recompute r);

}  // namespace cs
