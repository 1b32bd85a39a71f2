// What an expert-parallel dispatch moves per routed token, by dispatcher. Megatron-Core's alltoall dispatcher
// sends every one of a token's top_k copies to the rank that owns the expert (NCCL all-to-all). The flex
// dispatchers (DeepEP, HybridEP) deduplicate: a token crosses to each remote node that owns any of its experts
// once, over the GPU's own NIC to the same-index GPU there, which forwards it over NVLink to each GPU of that node
// owning one of its experts (once per GPU). Expected counts for routing spread evenly over the experts, and over
// each token's best router groups where the model limits them (DeepSeek-V3).
#pragma once

#include "sim/workload/model_spec.hpp"

namespace cs {

struct DispatchFanout {
  /// Expected distinct nodes other than the sender's that own one of a token's experts: the token's
  /// inter-node sends under a flex dispatcher (the all-to-all sends top_k x (nodes - 1) / nodes).
  double remote_nodes = 0;
  /// Expected distinct GPUs that own one of a token's experts: a flex dispatcher's NVLink deliveries.
  double gpus = 0;
};

/// For an EP group of `ep` ranks spread evenly over `nodes` nodes (experts / ep experts per rank).
[[nodiscard]] DispatchFanout dispatch_fanout(const ModelSpec& m, int ep, int nodes);

}  // namespace cs
