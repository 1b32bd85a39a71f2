// What a training job sends between its nodes in one step, from its parallel plan and Megatron's rank order
// (RankLayout): DP rings (gradients), PP neighbours (activations), CP rings and EP all-to-alls. Both the OCS
// candidate (which strides get circuits) and the placement optimiser (which nodes sit close) read it.
#pragma once

#include <vector>

#include "sim/workload/model_spec.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace cs {

/// Bytes between node pairs in one step, symmetric, nodes x nodes, row-major.
struct NodeTraffic {
  int nodes = 0;
  std::vector<double> bytes;
  [[nodiscard]] double at(int a, int b) const { return bytes[static_cast<std::size_t>(a * nodes + b)]; }
};

/// The job's node-to-node bytes per step with `gpus_per_node` GPUs per node: a ring collective of n ranks sends
/// 2(n-1)/n of its buffer to the next rank (DP gradients, in fp32 when grad_reduce_in_fp32), a stage boundary a
/// micro-batch's activations each way per micro-batch, ring attention a key/value chunk per layer, an MoE
/// dispatch top_k/ep of the tokens to each peer, forward and backward.
[[nodiscard]] NodeTraffic node_traffic(const ModelSpec& model, const ParallelPlan& plan, const TrainingConfig& training,
                                       int gpus_per_node, int nodes);

/// The same traffic keyed by the circuit stride it needs (s and nodes - s are one stride).
struct StrideTraffic {
  int stride = 0;
  double bytes = 0;
};
/// Heaviest first.
[[nodiscard]] std::vector<StrideTraffic> stride_traffic(const NodeTraffic& traffic);

}  // namespace cs
