// How a training job is laid out on the GPUs and what it computes each step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "sim/core/error.hpp"
#include "sim/hardware/dtype.hpp"
#include "sim/workload/model_spec.hpp"

namespace cs {

class InputNode;

enum class PipelineSchedule { gpipe, one_f_one_b, interleaved };
enum class Recompute { none, selective, full };

struct ParallelPlan {
  int tp = 1;                  ///< tensor parallel
  int pp = 1;                  ///< pipeline parallel
  int dp = 1;                  ///< data parallel (replicas)
  int cp = 1;                  ///< context parallel (ring attention)
  int ep = 1;                  ///< expert parallel (within the data-parallel group, Megatron-style)
  int virtual_stages = 1;      ///< model chunks per pipeline rank (interleaved 1F1B)
  bool sequence_parallel = false;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  int zero_stage = 0;          ///< 0: none, 1: optimizer states sharded (distributed optimizer), 2: +grads, 3: +params (FSDP)
  /// torch.nn.DataParallel instead of DistributedDataParallel: one process drives every GPU of a node; gradients
  /// are reduced to GPU 0 after the backward pass (no overlap) and the parameters broadcast from it every step.
  bool single_process_dp = false;

  [[nodiscard]] int gpus() const noexcept { return tp * pp * dp * cp; }
};

struct Overlap {
  bool grad_reduce = true;     ///< DP gradient reduction runs in buckets under the backward pass
  bool param_gather = true;    ///< ZeRO/FSDP parameter all-gather runs ahead under compute
  bool tp_comm = false;        ///< TP collectives overlapped with GEMMs (userbuffers-style)
  /// SMs the overlapped TP collectives occupy, slowing the GEMM they hide behind by comm_sms / sm_count while
  /// they run (Transformer Engine's userbuffers default: 16 SMs for reduce-scatter overlap).
  int tp_comm_sms = 16;
};

/// Gradient compression for data-parallel traffic (DDP communication hooks): top-k sparsification sends
/// `ratio` of the gradient as (value, index) pairs with an all-gather; PowerSGD sends low-rank factors of
/// `ratio` of the gradient's size with an all-reduce. Both add bandwidth-bound passes over the gradients.
enum class GradCompression { none, topk, powersgd };

/// How attention is computed: one fused flash-style kernel (FlashAttention, cuDNN, since 2022-23 in Megatron-LM
/// and NeMo), or Megatron-LM's earlier unfused path: a batched score GEMM, a fused scale-mask-softmax kernel,
/// dropout, and a batched GEMM with V, materialising the s x s scores.
enum class AttentionKernel { flash, unfused };

struct TrainingConfig {
  int micro_batch = 1;              ///< sequences per micro-batch
  std::int64_t global_batch = 1;    ///< sequences per optimizer step
  int seq_len = 0;                  ///< tokens per sequence
  DType precision = DType::bf16;    ///< GEMM precision; fp8 keeps attention and optimizer in bf16/fp32
  Recompute recompute = Recompute::none;
  AttentionKernel attention = AttentionKernel::flash;
  Overlap overlap;
  std::optional<double> token_budget;  ///< tokens to train on, for time to train
  std::int64_t grad_bucket_bytes = 40'000'000 * 4;  ///< DP bucket size (Megatron default: 40M fp32 elements)
  GradCompression compression = GradCompression::none;
  double compression_ratio = 0.01;  ///< fraction of gradient elements (top-k) or bytes (PowerSGD) sent

  /// Micro-batches per pipeline per step = global_batch / (micro_batch * dp).
  [[nodiscard]] std::int64_t micro_batches(const ParallelPlan& p) const noexcept {
    return global_batch / (static_cast<std::int64_t>(micro_batch) * p.dp);
  }
};

/// The layers [first, last) of virtual pipeline stage `vs` (chunk c of stage s is vs = c*pp + s). Layers are
/// spread as evenly as possible: when pp*virtual_stages does not divide them, the later stages take one more
/// (Megatron-LM's uneven split puts the embedding-heavy first and last stages lighter, the same direction).
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
