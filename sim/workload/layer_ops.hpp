// The operators one GPU runs for one micro-batch through one transformer layer (and the embedding and
// output layers), with exact shapes under a parallel plan. Shapes follow Megatron-LM's partitioning:
// column-parallel QKV and FFN-up, row-parallel output and FFN-down, sequence parallelism turning each TP
// all-reduce into a reduce-scatter plus an all-gather, ring attention splitting the sequence over CP ranks,
// and experts sharded over EP ranks with all-to-all dispatch and combine.
#pragma once

#include <string>
#include <vector>

#include "sim/collectives/collective.hpp"
#include "sim/hardware/compute_cost_model.hpp"
#include "sim/workload/model_spec.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace cs {

enum class OpKind { gemm, attention, memory, collective };

/// Memory time of one element of an atomic scatter-add (PyTorch's index_add_ / scatter_add_ on 16-bit rows with
/// repeated indices: the unfused MoE unpermutation and the permutation's gradient), in bytes at a memory-bound
/// kernel's bandwidth. Measured on the H200 (profiles/h200-calibration/run6-moe/moe_step.json,
/// `indexFuncLargeIndex`: 12 calls each of 65,536, 16,384 and 8,192 rows of 2,048 took 1.110, 0.286 and 0.145 ms,
/// 8.21 ps per element beyond 7 us) at the profile's memory_fit bandwidth of 3,934 GB/s: 32.3 bytes per element,
/// against the 6 of a streaming add. Other GPUs are priced at their own memory bandwidth (not measured there).
inline constexpr double kAtomicScatterBytesPerElement = 32.3;
/// Which process group a collective op runs on.
enum class CommGroup { tp, cp, ep };

struct Op {
  std::string name;
  OpKind kind = OpKind::memory;
  GemmShape gemm;          ///< kind == gemm
  AttentionShape attention;///< kind == attention
  Bytes bytes;             ///< kind == memory: bytes moved; kind == collective: NCCL buffer size
  CollectiveKind collective = CollectiveKind::all_reduce;
  CommGroup group = CommGroup::tp;
  /// FLOPs this op contributes to the model-FLOP count (GEMMs and attention, counted the way Megatron-LM
  /// does: attention without the causal saving). Zero for memory and communication.
  Flops model_flops;
  /// Part of the attention core that selective recompute (Korthikanti et al. 2022) recomputes in the backward
  /// pass instead of storing: the score GEMM, softmax and dropout of unfused attention.
  bool selective_recompute = false;
  /// The fine-grained recompute modules this op belongs to (RecomputeModules::Bit): rerun before the backward
  /// when the training config names one of them.
  unsigned recompute_modules = 0;
  /// The CUDA-graph modules this op belongs to (CudaGraphModules::Bit): captured when the training config names
  /// one of them.
  unsigned graph_modules = 0;
  /// kind == memory: bytes of the matching backward kernel over `bytes` (2: read the saved input and the
  /// incoming gradient, write the gradient). An fp8 cast's backward is the gradient's cast, priced on its own.
  double backward_scale = 2.0;
  /// Kernels the framework launches for this op (and for each of its backward kernels): 1, or one per local
  /// expert where Transformer Engine's GroupedLinear loops over the experts on the host (one cuBLAS GEMM per
  /// expert, and under fp8 current scaling four quantisation kernels per expert). What the further launches
  /// cost the host and the GPU depends on TrainingConfig::grouped_launch (a native or a Python loop).
  int launches = 1;
  /// The backward's kernels where they differ from the forward's (0: as many as `launches`).
  int backward_launches = 0;
  /// The launches come from a Python loop or a chain of PyTorch operators, whatever TrainingConfig::grouped_launch
  /// says of Transformer Engine's grouped GEMMs: each pays the eager host cost and kernel gap.
  bool python_launches = false;
  /// kind == gemm: the GEMM is this many independent products of equal shape stacked along its rows (a batched
  /// kernel that fills the GPU, priced as one GEMM). Each product has its own weight gradient, so the backward's
  /// weight-gradient GEMM is stacked the same way instead of reducing over every product's rows.
  int stacked = 1;
  /// kind == gemm: both operands are activations (attention scores and probabilities x V, the SSD scan's chunk
  /// products), so neither of its backward GEMMs is a weight gradient.
  bool activation_product = false;
  /// A backward op that computes a weight gradient (the wgrad GEMM of a GEMM with a weight): what a zero-bubble
  /// schedule defers as its W unit; every other backward op is the input gradient's (B).
  bool weight_gradient = false;
  /// The host waits for the GPU to reach this op before it can launch it (a device-to-host copy the launch needs:
  /// the dropless alltoall dispatcher's per-expert token counts). Forward only; costs time only where the host
  /// issues kernels eagerly (TrainingConfig::host_launch_cost).
  bool host_sync = false;
};

/// mtp_head: what one multi-token prediction module adds besides its transformer layer (the next token's
/// embedding, two norms, the 2h -> h projection, the output head and loss again). The last four are the single
/// blocks of a hybrid model's layers (LayerKind): a Mamba-2 mixer, self-attention, a dense MLP, an MoE MLP.
enum class LayerPart { dense_layer, moe_layer, embedding, output, mtp_head, mamba_layer, attention_layer, mlp_layer, moe_mlp_layer };

/// The part that prices a layer of kind `k`.
[[nodiscard]] LayerPart layer_part(LayerKind k) noexcept;

/// Forward operators of one micro-batch through `part` on one GPU; `windowed_attention`: the layer attends
/// within the model's sliding window (ModelSpec::windowed_layer). Unfused attention (frameworks without a
/// fused kernel) masks the full score matrix, so the window changes only the fused kernel's work.
[[nodiscard]] std::vector<Op> forward_ops(LayerPart part, const ModelSpec& m, const ParallelPlan& p,
                                          const TrainingConfig& t, bool windowed_attention = false);
/// The backward operators matching `forward` (data and weight gradients, reversed collectives).
[[nodiscard]] std::vector<Op> backward_ops(const std::vector<Op>& forward);

}  // namespace cs
