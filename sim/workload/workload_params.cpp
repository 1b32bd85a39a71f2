#include "sim/workload/workload_params.hpp"

#include <filesystem>

#include "sim/core/data_dir.hpp"
#include "sim/workload/framework_profile.hpp"

namespace cs {

static_assert(ParallelPlan::kAutoDp == 0, "parallelism.dp: auto is read as 0 (param_detail::read_count_or_auto)");

const EnumTable<Placement>& placement_names() {
  static const EnumTable<Placement> t{{Placement::megatron, "megatron"}, {Placement::optimise, "optimise"}};
  return t;
}

const EnumTable<PipelineSchedule>& schedule_names() {
  static const EnumTable<PipelineSchedule> t{{PipelineSchedule::gpipe, "gpipe"},
                                             {PipelineSchedule::one_f_one_b, "1f1b"},
                                             {PipelineSchedule::interleaved, "interleaved-1f1b"},
                                             {PipelineSchedule::dualpipe, "dualpipe"},
                                             {PipelineSchedule::zb_h1, "zb-h1"},
                                             {PipelineSchedule::zb_h2, "zb-h2"},
                                             {PipelineSchedule::zb_v, "zb-v"},
                                             {PipelineSchedule::dualpipe_v, "dualpipe-v"},
                                             {PipelineSchedule::pipedream_2bw, "pipedream-2bw"},
                                             {PipelineSchedule::pipedream_async, "pipedream-async"}};
  return t;
}
const EnumTable<Recompute>& recompute_names() {
  static const EnumTable<Recompute> t{
      {Recompute::none, "none"}, {Recompute::selective, "selective"}, {Recompute::full, "full"}};
  return t;
}
const EnumTable<AttentionKernel>& attention_names() {
  static const EnumTable<AttentionKernel> t{
      {AttentionKernel::flash, "flash"}, {AttentionKernel::cudnn, "cudnn"}, {AttentionKernel::unfused, "unfused"}};
  return t;
}
const EnumTable<GroupedLaunch>& grouped_launch_names() {
  static const EnumTable<GroupedLaunch> t{{GroupedLaunch::native, "native"}, {GroupedLaunch::python, "python"}};
  return t;
}
const EnumTable<HostWork>& host_work_names() {
  static const EnumTable<HostWork> t{{HostWork::per_kind, "per_kind"}, {HostWork::uniform, "uniform"}};
  return t;
}
const EnumTable<MoeDispatcher>& moe_dispatcher_names() {
  static const EnumTable<MoeDispatcher> t{{MoeDispatcher::alltoall, "alltoall"}, {MoeDispatcher::flex, "flex"}};
  return t;
}
const EnumTable<GradCompression>& compression_names() {
  static const EnumTable<GradCompression> t{
      {GradCompression::none, "none"}, {GradCompression::topk, "topk"}, {GradCompression::powersgd, "powersgd"}};
  return t;
}
const EnumTable<NormKind>& norm_names() {
  static const EnumTable<NormKind> t{{NormKind::layernorm, "layernorm"}, {NormKind::rmsnorm, "rmsnorm"}};
  return t;
}
const EnumTable<Fp8Recipe>& fp8_recipe_names() {
  static const EnumTable<Fp8Recipe> t{{Fp8Recipe::delayed, "delayed"}, {Fp8Recipe::current, "current"}};
  return t;
}
const EnumTable<DType>& optimizer_dtype_names() {
  static const EnumTable<DType> t{{DType::fp32, "fp32"}, {DType::bf16, "bf16"}};
  return t;
}

const EnumTable<DType>& precision_names() {
  static const EnumTable<DType> t{{DType::fp32, "fp32"}, {DType::tf32, "tf32"}, {DType::bf16, "bf16"},
                                  {DType::fp16, "fp16"}, {DType::fp8, "fp8"}, {DType::mxfp8, "mxfp8"}, {DType::fp4, "fp4"}};
  return t;
}

namespace {

void add_dimensions(ParamTable<ModelSpec>& p) {
  p.field("name", &ModelSpec::name, {.help = "the model's name, printed in results", .default_text = "preset's"});
  p.field("layers", &ModelSpec::layers, {.help = "transformer layers (a hybrid model: its blocks, the length of hybrid_pattern)", .positive = true, .default_text = "preset's"});
  p.field("hidden", &ModelSpec::hidden, {.help = "hidden size h", .positive = true, .default_text = "preset's"});
  p.field("heads", &ModelSpec::heads,
          {.help = "attention heads (must divide hidden unless head_dim is given)", .positive = true,
           .default_text = "preset's"});
  p.field("head_dim", &ModelSpec::head_width,
          {.help = "width of one attention head when it is not hidden/heads (Qwen3, GPT-OSS); 0: hidden/heads",
           .min = 0, .default_text = "hidden / heads"});
  p.field("v_head_dim", &ModelSpec::v_head_width,
          {.help = "width of one value head when it is not head_dim (DeepSeek-V3: 128 with 192-wide query/key heads); 0: head_dim",
           .min = 0, .default_text = "head_dim"});
  p.field("kv_lora_rank", &ModelSpec::kv_lora_rank,
          {.help = "multi-head latent attention (DeepSeek-V2/V3, Kimi K2): width of the key/value latent; 0: standard attention",
           .min = 0});
  p.field("q_lora_rank", &ModelSpec::q_lora_rank,
          {.help = "MLA: low-rank query projection h -> q_lora_rank -> heads x (head_dim + rope_head_dim); 0: full rank",
           .min = 0});
  p.field("mtp_layers", &ModelSpec::mtp_layers,
          {.help = "multi-token prediction modules (DeepSeek-V3: 1): each adds a transformer layer, a 2h -> h "
                   "projection and a second pass through the output head and loss on the last pipeline stage",
           .min = 0});
  p.field("rope_head_dim", &ModelSpec::rope_head_dim,
          {.help = "MLA: decoupled rotary width added to each query/key head (DeepSeek-V3: 64)", .min = 0});
  p.field("kv_heads", &ModelSpec::kv_heads,
          {.help = "key/value heads (GQA/MQA); must divide heads", .positive = true, .default_text = "= heads"});
  p.field("ffn_hidden", &ModelSpec::ffn_hidden,
          {.help = "FFN inner size of a dense layer", .positive = true, .default_text = "4 x hidden"});
  p.field("gated_ffn", &ModelSpec::gated_ffn, {.help = "SwiGLU: up and gate projections, then down"});
  p.field("sliding_window", &ModelSpec::sliding_window,
          {.help = "sliding-window attention: tokens each query attends to, itself included (GPT-OSS: 128, "
                   "Mistral 7B: 4096); 0: the whole causal prefix",
           .min = 0});
  p.field("full_attention_every", &ModelSpec::full_attention_every,
          {.help = "with sliding_window: every n-th layer (n, 2n, ... counted from 1) attends to the whole prefix "
                   "(GPT-OSS: 2, Gemma 3: 6); 0: every layer is windowed; no effect without a window",
           .min = 0});
  p.field("rope_mscale", &ModelSpec::rope_mscale,
          {.help = "YaRN's attention concentration factor in the rotary embedding (GPT-OSS: 1.347); not 1: "
                   "Megatron-Core applies RoPE with unfused PyTorch operators (TE's fused RoPE takes no factor)",
           .min = 0.0});
  p.field("qk_norm", &ModelSpec::qk_norm,
          {.help = "each query and key head normalised before RoPE (Qwen3; Megatron-Core qk_layernorm): one more "
                   "pass over the queries and keys, forward and backward"});
  p.field("expert_bias", &ModelSpec::expert_bias,
          {.help = "the experts' linear layers have biases (GPT-OSS): Megatron-Core adds the down projection's "
                   "bias times each token's routing probability in an eager per-expert loop in fp32"});
  p.field("vocab", &ModelSpec::vocab, {.help = "vocabulary size", .positive = true, .default_text = "preset's"});
  p.field("seq_len", &ModelSpec::seq_len,
          {.help = "default training sequence length, tokens", .positive = true, .default_text = "preset's"});
  p.choice("norm", &ModelSpec::norm, norm_names(), {.help = "normalisation layer"});
  p.field("tied_embeddings", &ModelSpec::tied_embeddings, {.help = "input and output embeddings share weights"});
  p.field("experts", &ModelSpec::experts, {.help = "routed experts per MoE layer; 0: a dense model", .min = 0});
  p.field("top_k", &ModelSpec::top_k, {.help = "experts each token is routed to (MoE)", .min = 0});
  p.field("shared_experts", &ModelSpec::shared_experts, {.help = "always-active experts per MoE layer", .min = 0});
  p.field("expert_ffn_hidden", &ModelSpec::expert_ffn_hidden,
          {.help = "FFN inner size of one expert", .min = 0, .default_text = "= ffn_hidden"});
  p.field("dense_layers", &ModelSpec::dense_layers,
          {.help = "leading layers that stay dense in an MoE model (DeepSeek-V3: 3)", .min = 0});
  p.field("router_groups", &ModelSpec::router_groups,
          {.help = "group-limited routing: equal groups of experts (DeepSeek-V3 n_group: 8); 0: unlimited", .min = 0});
  p.field("router_group_topk", &ModelSpec::router_group_topk,
          {.help = "groups each token's experts are chosen from (DeepSeek-V3 topk_group: 4)", .min = 0});
  p.field("hybrid_pattern", &ModelSpec::hybrid_pattern,
          {.help = "a hybrid state-space model's layers, one character each (Megatron-Core hybrid_layer_pattern): "
                   "M a Mamba-2 mixer, * self-attention, - a dense MLP, E an MoE MLP; layers is its length. Empty: "
                   "every layer a transformer layer",
           .default_text = "none"});
  p.field("mamba_heads", &ModelSpec::mamba_heads,
          {.help = "Mamba-2 mixer: SSM heads (Nemotron-H 56B: 256); d_inner = mamba_heads x mamba_head_dim", .min = 0});
  p.field("mamba_head_dim", &ModelSpec::mamba_head_dim, {.help = "Mamba-2 mixer: channels per SSM head", .positive = true});
  p.field("mamba_state", &ModelSpec::mamba_state,
          {.help = "Mamba-2 mixer: state size per head, d_state (Nemotron-H 56B: 256)", .positive = true});
  p.field("mamba_groups", &ModelSpec::mamba_groups,
          {.help = "Mamba-2 mixer: groups sharing one B and C projection (must divide mamba_heads)", .positive = true});
  p.field("mamba_conv", &ModelSpec::mamba_conv, {.help = "Mamba-2 mixer: causal convolution width, tokens", .positive = true});
  p.field("mamba_chunk", &ModelSpec::mamba_chunk,
          {.help = "Mamba-2 mixer: tokens per chunk of the chunked scan (SSD)", .positive = true});
}

void read_preset(const InputNode& preset, ModelSpec& m) {
  const std::string name = preset.as<std::string>();
  const std::string path = data_path("models/" + name + ".yaml");
  if (!std::filesystem::is_regular_file(path)) preset.fail("unknown model preset \"" + name + "\" (no " + path + ")");
  model_file_params().read(InputNode::load_file(path), m);
}

}  // namespace

const ParamTable<ModelSpec>& model_file_params() {
  static const ParamTable<ModelSpec> t = [] {
    ParamTable<ModelSpec> p("", "A model preset file (models/NAME.yaml): the model's dimensions.");
    const ParamSpec version = format_version_spec("model", {1});
    p.custom(version, [check = version.check](const InputNode& n, ModelSpec&) { check(n); });
    add_dimensions(p);
    return p;
  }();
  return t;
}

const ParamTable<ModelSpec>& model_params() {
  static const ParamTable<ModelSpec> t = [] {
    ParamTable<ModelSpec> p("model", "The model: a preset from models/, any of whose keys may be overridden "
                                     "here, or the dimensions themselves.");
    ParamSpec preset{.key = "preset", .type = ParamType::text,
                     .help = "a file models/NAME.yaml; the keys below override it", .default_text = "none"};
    preset.check = [](const InputNode& n) {
      ModelSpec m;
      read_preset(n, m);
    };
    p.custom(std::move(preset), [](const InputNode& n, ModelSpec& m) { read_preset(n, m); });
    add_dimensions(p);
    return p;
  }();
  return t;
}

const ParamTable<ParallelPlan>& parallel_plan_params() {
  static const ParamTable<ParallelPlan> t = [] {
    ParamTable<ParallelPlan> p("parallelism", "How the job is laid out on the GPUs.");
    p.field("tp", &ParallelPlan::tp, {.help = "tensor-parallel degree (within a node)", .positive = true});
    p.field("pp", &ParallelPlan::pp, {.help = "pipeline-parallel degree", .positive = true});
    p.custom(count_or_auto_spec("dp",
                                "data-parallel degree; tp*pp*dp*cp is the job's GPUs. auto (or the key left out): "
                                "cluster.gpus / (tp*pp*cp), so a what-if on the GPU count keeps the layout",
                                "auto"),
             [](const InputNode& n, ParallelPlan& plan) { plan.dp = param_detail::read_count_or_auto(n); });
    p.field("cp", &ParallelPlan::cp, {.help = "context-parallel degree (ring attention)", .positive = true});
    p.field("ep", &ParallelPlan::ep, {.help = "expert-parallel degree (MoE)", .positive = true});
    p.field("virtual_stages", &ParallelPlan::virtual_stages,
            {.help = "model chunks per pipeline rank (interleaved 1F1B)", .positive = true});
    p.field("sequence_parallel", &ParallelPlan::sequence_parallel,
            {.help = "Megatron sequence parallelism", .default_text = "true when tp > 1"});
    p.choice("schedule", &ParallelPlan::schedule, schedule_names(),
             {.help = "pipeline schedule (dualpipe: DeepSeek-V3's bidirectional pipeline, two model pieces per rank; "
                      "zb-h1, zb-h2: zero bubble, the weight gradient deferred into the bubbles, 1F1B's and about "
                      "twice its activation memory; zb-v, dualpipe-v: V-shaped, two pieces per rank; pipedream-2bw, "
                      "pipedream-async: no flush, 2 or up to pp stale weight versions; docs/workload.md)",
              .default_text = "1f1b (interleaved-1f1b when virtual_stages > 1)"});
    p.choice("placement", &ParallelPlan::placement, placement_names(),
             {.help = "rank placement: megatron (rank r on GPU r) or optimise (node positions searched to cut "
                      "traffic-weighted fabric cost, kept only when the simulated step is faster; docs/design.md)"});
    ParamSpec mode{.key = "dp_mode", .type = ParamType::choice,
                   .help = "torch DistributedDataParallel, or single-process DataParallel (one node, no TP/PP/ZeRO)",
                   .default_text = "ddp", .choices = {"ddp", "single-process"}};
    mode.check = [](const InputNode& n) {
      const auto v = n.as<std::string>();
      n.require(v == "ddp" || v == "single-process", "must be ddp or single-process, got \"" + v + "\"");
    };
    p.custom(mode, [check = mode.check](const InputNode& n, ParallelPlan& plan) {
      check(n);
      plan.single_process_dp = n.as<std::string>() == "single-process";
    });
    p.field("expert_tp", &ParallelPlan::expert_tp,
            {.help = "expert tensor parallelism (Megatron-Core expert_tensor_parallel_size); 0: the same as tp. "
                     "Expert groups (expert_tp x ep) tile a stage's tp x cp x dp ranks (MoE parallel folding)",
             .min = 0});
    p.field("embedding_in_split", &ParallelPlan::embedding_in_split,
            {.help = "the input embedding counts as one pipeline layer of the first stage (Megatron-Core "
                     "account_for_embedding_in_pipeline_split)"});
    p.field("loss_in_split", &ParallelPlan::loss_in_split,
            {.help = "the output layer and loss count as one pipeline layer of the last stage, and each "
                     "multi-token prediction module as one more (Megatron-Core account_for_loss_in_pipeline_split)"});
    p.field("first_stage_layers", &ParallelPlan::first_stage_layers,
            {.help = "transformer layers of the first pipeline rank (num_layers_in_first_pipeline_stage); -1: even",
             .min = -1});
    p.field("last_stage_layers", &ParallelPlan::last_stage_layers,
            {.help = "transformer layers of the last pipeline rank (num_layers_in_last_pipeline_stage); -1: even",
             .min = -1});
    p.field("zero", &ParallelPlan::zero_stage,
            {.help = "ZeRO stage: 1 optimizer states sharded (distributed optimizer), 2 + gradients, 3 + "
                     "parameters (FSDP: gathered before every unit, prefetched one unit ahead)",
             .min = 0, .max = 3});
    p.check([](const InputNode& n, ParallelPlan& plan) {
      if (!n.has("dp")) plan.dp = ParallelPlan::kAutoDp;
      if (!n.has("sequence_parallel")) plan.sequence_parallel = plan.tp > 1;
      if (!n.has("schedule") && plan.virtual_stages > 1) plan.schedule = PipelineSchedule::interleaved;
    });
    return p;
  }();
  return t;
}

namespace {

const ParamTable<Overlap>& overlap_params() {
  static const ParamTable<Overlap> t = [] {
    ParamTable<Overlap> p("overlap", "Which communication runs under compute.");
    p.field("grad_reduce", &Overlap::grad_reduce, {.help = "DP gradient reduction in buckets under the backward pass"});
    p.field("param_gather", &Overlap::param_gather,
            {.help = "distributed-optimizer / FSDP parameter all-gather hidden under compute"});
    p.field("tp_comm", &Overlap::tp_comm, {.help = "TP collectives overlapped with the adjacent GEMM (userbuffers)"});
    p.field("pp_comm", &Overlap::pp_comm,
            {.help = "an interleaved, zero-bubble, V-shaped or PipeDream pipeline's sends run beside compute "
                     "(Megatron-Core overlap_p2p_comm; the zero-bubble runtime's own send nodes); false, or gpipe and "
                     "1f1b: the stage waits for each send before its next unit (batched isend/irecv with a device "
                     "synchronise); DualPipe's always run beside compute"});
    p.field("tp_comm_sms", &Overlap::tp_comm_sms,
            {.help = "SMs the overlapped TP collectives take from that GEMM (Transformer Engine userbuffers default); "
                     "the GEMM slows by the H200's measured curve for that share (24% at 16 of 132 SMs)",
             .min = 0});
    p.field("ep_comm", &Overlap::ep_comm,
            {.help = "MoE all-to-all (dispatch, combine) of one micro-batch hidden under another's compute: "
                     "Megatron-Core's merged forward-backward 1F1B (overlap_moe_expert_parallel_comm); holds one "
                     "more micro-batch of activations"});
    p.field("ep_comm_sms", &Overlap::ep_comm_sms,
            {.help = "SMs the overlapped all-to-all holds beside compute (DeepEP: 20, arXiv 2603.07685 Sec. 4.2.3); "
                     "compute beside it slows by the H200's measured curve for that share",
             .min = 0});
    return p;
  }();
  return t;
}

const ParamTable<RecomputeModules>& recompute_module_params() {
  static const ParamTable<RecomputeModules> t = [] {
    ParamTable<RecomputeModules> p("recompute_modules",
                                   "Megatron-Core's fine-grained recompute (recompute_modules): modules rerun before "
                                   "their backward instead of keeping their activations.");
    p.field("layernorm", &RecomputeModules::layernorm,
            {.help = "the norms before attention and the FFN (their outputs, the GEMM inputs, are not kept)"});
    p.field("mla_up_proj", &RecomputeModules::mla_up_proj,
            {.help = "multi-head latent attention's query and key/value up-projections (Q, K, V not kept)"});
    p.field("mlp", &RecomputeModules::mlp, {.help = "a dense layer's FFN"});
    p.field("moe_act", &RecomputeModules::moe_act,
            {.help = "the routed experts' activation function (its output, the down projection's input, not kept)"});
    p.field("moe", &RecomputeModules::moe,
            {.help = "the whole MoE block: router, permutation, dispatch and combine all-to-alls, experts"});
    p.field("shared_experts", &RecomputeModules::shared_experts, {.help = "the MoE layer's shared experts"});
    return p;
  }();
  return t;
}

const ParamTable<CudaGraphModules>& cuda_graph_module_params() {
  static const ParamTable<CudaGraphModules> t = [] {
    ParamTable<CudaGraphModules> p("cuda_graph_modules",
                                   "Megatron-Core's per-module CUDA graphs (cuda_graph_impl transformer_engine, "
                                   "cuda_graph_modules): modules replayed as graphs while the rest launches eagerly; "
                                   "their operators cost the host one launch per captured stretch and no eager gap.");
    p.field("attn", &CudaGraphModules::attn, {.help = "the attention block: input norm, self-attention, residual add"});
    p.field("mlp", &CudaGraphModules::mlp, {.help = "a dense layer's MLP block with its norm"});
    p.field("moe", &CudaGraphModules::moe, {.help = "the whole MoE block (token dropping only: no host sync inside)"});
    p.field("moe_router", &CudaGraphModules::moe_router,
            {.help = "the MoE block's norm and router (and shared experts that are not overlapped)"});
    p.field("moe_preprocess", &CudaGraphModules::moe_preprocess,
            {.help = "the token dispatcher's preprocessing (token counts; too small to price)"});
    p.field("mamba", &CudaGraphModules::mamba, {.help = "the Mamba mixer block"});
    return p;
  }();
  return t;
}

const ParamTable<TrainingConfig>& compression_params() {
  static const ParamTable<TrainingConfig> t = [] {
    ParamTable<TrainingConfig> p("grad_compression", "DDP gradient compression (needs zero: 0).");
    p.choice("method", &TrainingConfig::compression, compression_names(),
             {.help = "top-k sparsification (all-gather of value, index pairs) or PowerSGD low-rank factors",
              .required = true});
    p.field("ratio", &TrainingConfig::compression_ratio,
            {.help = "fraction of gradient elements (top-k) or bytes (PowerSGD) sent", .max = 1.0, .positive = true});
    return p;
  }();
  return t;
}

}  // namespace

const ParamTable<TrainingConfig>& training_params() {
  static const ParamTable<TrainingConfig> t = [] {
    ParamTable<TrainingConfig> p("training", "Batch, sequence, precision and what overlaps.");
    // First, so that the launch-cost keys below replace what the framework's profile sets.
    ParamSpec framework;
    framework.key = "framework";
    framework.type = ParamType::text;
    framework.help = "the framework's measured host costs: a profile of profiles/frameworks (pytorch-eager, "
                     "megatron-core-te-2025, megatron-core-te-2026, cuda-graphs) or a path to one; kernel_gap, "
                     "host_launch_cost, framework_host_factor and host_work below replace its figures";
    framework.default_text = kDefaultFramework;
    p.custom(framework, [](const InputNode& n, TrainingConfig& c) {
      const std::string name = n.as<std::string>();
      try {
        apply_framework(find_framework_profile(name), c);
      } catch (const InputError& e) {
        n.fail(e.what());
      }
    });
    p.field("global_batch", &TrainingConfig::global_batch,
            {.help = "sequences per optimizer step; a multiple of micro_batch x dp", .positive = true,
             .required = true});
    p.field("micro_batch", &TrainingConfig::micro_batch, {.help = "sequences per micro-batch", .positive = true});
    p.field("seq_len", &TrainingConfig::seq_len,
            {.help = "tokens per sequence", .positive = true, .default_text = "the model's seq_len"});
    p.choice("precision", &TrainingConfig::precision, precision_names(),
             {.help = "GEMM precision (fp8, mxfp8 and fp4 add cast kernels; attention stays 16-bit; mxfp8 is "
                      "Blackwell's block-scaled fp8, an E8M0 scale per 32 elements, cast in one pass; fp4 is NVFP4, "
                      "Blackwell: E2M1 with an E4M3 scale per 16 elements and a per-tensor amax pass)"});
    p.choice("fp8_recipe", &TrainingConfig::fp8_recipe, fp8_recipe_names(),
             {.help = "Transformer Engine fp8 scaling: delayed (amax history) or current (per-tensor amax just "
                      "before each cast, one more read); precision fp8 only"});
    p.field("fp8_params", &TrainingConfig::fp8_params,
            {.help = "weights stored in the GEMM format (TE fp8_model_init / NeMo fp8 or fp4 param gather): a "
                     "1-byte (fp8) or 0.5625-byte (fp4) working copy, no per-step weight cast"});
    p.field("fp8_attention", &TrainingConfig::fp8_attention,
            {.help = "attention itself in fp8 (Transformer Engine's fp8_dot_product_attention) under precision fp8 "
                     "or mxfp8: priced at the profile's measured speed-up over 16-bit (attention_fp8), as 16-bit "
                     "where the profile has none"});
    p.field("moe_load_imbalance", &TrainingConfig::moe_load_imbalance,
            {.help = "tokens the busiest expert-parallel rank receives over the balanced share (1: balanced)",
             .min = 1.0, .max = 16.0});
    p.choice("moe_dispatcher", &TrainingConfig::moe_dispatcher, moe_dispatcher_names(),
             {.help = "MoE token dispatcher: alltoall (NCCL all-to-all of every routed copy) or flex (DeepEP / "
                      "HybridEP: a token crosses to each remote node once, then NVLink fans it out to its GPUs)"});
    p.field("moe_capacity_factor", &TrainingConfig::moe_capacity_factor,
            {.help = "token dropping: each expert takes at most this many times its balanced share and is padded to "
                     "it (Megatron-Core moe_expert_capacity_factor with padding): every rank computes and sends "
                     "exactly the capacity, with no host synchronisation; 0: dropless",
             .min = 0.0, .max = 16.0});
    p.field("grad_reduce_in_fp32", &TrainingConfig::grad_reduce_in_fp32,
            {.help = "gradients accumulated and reduced in fp32 (Megatron-LM default); false: bf16 (NeMo "
                     "performance recipes, MLPerf)"});
    p.choice("optimizer_moments", &TrainingConfig::optimizer_moments, optimizer_dtype_names(),
             {.help = "Adam's m and v: fp32 (Megatron-LM default) or bf16 (DeepSeek-V3; Megatron-Core "
                      "--exp-avg-dtype / --exp-avg-sq-dtype; NeMo distributed_fused_adam dtype bf16)"});
    p.choice("master_weights", &TrainingConfig::master_weights, optimizer_dtype_names(),
             {.help = "the optimizer's master copy of the weights in mixed precision: fp32 (default) or bf16 "
                      "(Megatron-Core --main-params-dtype; NeMo distributed_fused_adam dtype bf16)"});
    p.field("kernel_gap", &TrainingConfig::kernel_gap,
            {.help = "idle GPU time after each operator when the framework launches eagerly (the framework "
                     "profile's; pytorch-eager: 9.1us measured on the H200); 0 with CUDA graphs",
             .min = 0.0});
    p.field("host_launch_cost", &TrainingConfig::host_launch_cost,
            {.help = "host time per operator launch when the framework launches eagerly (the framework "
                     "profile's; pytorch-eager: 32us per kernel measured on the H200 host); the GPU waits when the "
                     "host falls behind; 0: the host never binds (CUDA graphs)",
             .min = 0.0});
    p.field("framework_host_factor", &TrainingConfig::framework_host_factor,
            {.help = "host work per operator launch against eager PyTorch's (whose cost host_launch_cost is; the "
                     "framework profile's): 1 for PyTorch, 7.04 for Megatron-Core's layers on Transformer Engine's "
                     "2025 releases (megatron-core-te-2025); plain PyTorch operators inside the framework keep 1",
             .min = 0.01});
    p.choice("host_work", &TrainingConfig::host_work, host_work_names(),
             {.help = "how framework_host_factor applies: per_kind (measured for Megatron-Core 0.15 on Transformer "
                      "Engine 2.9: operators at the factor, plain PyTorch operators at 1, a grouped GEMM's further "
                      "launches up to the profile's grouped_gemm_launch, further small kernels at its "
                      "native_kernel_launch) or uniform (every launch times the factor)"});
    p.field("moe_host_sync", &TrainingConfig::moe_host_sync,
            {.help = "the dropless MoE dispatcher copies per-expert token counts to the host before the all-to-all "
                     "(Megatron-Core alltoall); false: a sync-free dispatcher (token dropping never syncs)"});
    p.field("moe_permute_fusion", &TrainingConfig::moe_permute_fusion,
            {.help = "MoE token permutation in fused kernels (Megatron-Core moe_permute_fusion, Megatron-Bridge's "
                     "recipes); false: PyTorch's operators, whose unpermutation and permutation gradient are atomic "
                     "scatter-adds (measured 32.3 bytes of memory time per element on the H200, docs/validation.md)"});
    p.field("moe_router_padding", &TrainingConfig::moe_router_padding,
            {.help = "each expert's rows arrive aligned for the quantised GEMMs: the router pads the counts (Megatron-Core "
                     "moe_router_padding_for_quantization) or the dispatch aligns them (DeepEP's expert_alignment, as "
                     "DeepSeek's framework runs it); false: under fp8 or fp4 with dropless routing Transformer "
                     "Engine's grouped MLP copies its rows into padded buffers and back (measured 0.79 ms per "
                     "Qwen3-30B-A3B layer on the H100, docs/validation.md)"});
    p.choice("grouped_launch", &TrainingConfig::grouped_launch, grouped_launch_names(),
             {.help = "how an eager framework launches a grouped operator's per-expert kernels: native (Transformer "
                      "Engine's loop, at the framework profile's native launch costs) or python (a Python loop: "
                      "every kernel an operator of its own)"});
    p.choice("recompute", &TrainingConfig::recompute, recompute_names(), {.help = "activation recomputation"});
    p.section(&TrainingConfig::recompute_modules, recompute_module_params());
    p.section(&TrainingConfig::cuda_graph_modules, cuda_graph_module_params());
    p.choice("attention", &TrainingConfig::attention, attention_names(),
             {.help = "flash: FlashAttention-2's fused kernel (PyTorch SDPA, flash-attn); cudnn: cuDNN's fused "
                      "attention, which Transformer Engine selects on Hopper and later GPUs (priced from the profile's "
                      "cuDNN fits, or the flash fits where it has none); unfused: Megatron-LM's pre-2023 path (s x s "
                      "scores)"});
    p.section(&TrainingConfig::overlap, overlap_params());
    p.field("token_budget", &TrainingConfig::token_budget,
            {.help = "tokens to train on, for time to train, power and cost", .positive = true});
    ParamSpec bucket{.key = "grad_bucket", .type = ParamType::bytes,
                     .help = "DP gradient bucket (Megatron: 40M fp32 elements)", .default_text = "160MB",
                     .min = 1024.0};
    bucket.check = [](const InputNode& n) { n.require(n.as<Bytes>().value() >= 1024, "must be at least 1KiB"); };
    p.custom(bucket, [check = bucket.check](const InputNode& n, TrainingConfig& c) {
      check(n);
      c.grad_bucket_bytes = static_cast<std::int64_t>(n.as<Bytes>().value());
    });
    p.section(compression_params());
    return p;
  }();
  return t;
}

ModelSpec parse_model_spec(const InputNode& section) {
  ModelSpec m;
  model_params().read(section, m);
  check_model_spec(section, m);
  return m;
}

ParallelPlan parse_parallel_plan(const InputNode& section) {
  ParallelPlan p;
  parallel_plan_params().read(section, p);
  return p;
}

TrainingConfig parse_training_config(const InputNode& section, const ModelSpec& model) {
  TrainingConfig t;
  t.seq_len = model.seq_len;
  apply_framework(find_framework_profile(kDefaultFramework), t);
  training_params().read(section, t);
  return t;
}

}  // namespace cs
