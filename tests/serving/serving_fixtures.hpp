// Shared pieces of the serving tests: the serving rows' 1.5B Llama-style model, Llama 3 70B, the h100-sxm
// profile's cost model and a hand-checkable ring for the TP collectives.
#pragma once

#include <memory>

#include "sim/hardware/device_profile.hpp"
#include "sim/serving/replica_comm.hpp"
#include "sim/workload/model_spec.hpp"

namespace cs::testing {

/// The decoder of ../shared/validation/serving_rows.csv: 16 layers, hidden 2048, GQA 32/8, SwiGLU 8192, a
/// 128,256-token vocabulary, untied output (1.50 B parameters).
inline ModelSpec llama_1b5() {
  ModelSpec m;
  m.name = "Llama-style 1.5B";
  m.layers = 16;
  m.hidden = 2048;
  m.heads = 32;
  m.kv_heads = 8;
  m.ffn_hidden = 8192;
  m.gated_ffn = true;
  m.vocab = 128256;
  m.seq_len = 8192;
  m.norm = NormKind::rmsnorm;
  return m;
}

/// models/llama3-70b.yaml.
inline ModelSpec llama3_70b() {
  ModelSpec m = llama_1b5();
  m.name = "Llama 3 70B";
  m.layers = 80;
  m.hidden = 8192;
  m.heads = 64;
  m.kv_heads = 8;
  m.ffn_hidden = 28672;
  return m;
}

/// The h100-sxm profile's cost model (its GEMM and attention fits come from the H200 calibration).
inline const ComputeCostModel& h100_cost() {
  static const std::unique_ptr<ComputeCostModel> model = make_cost_model(find_device_profile("h100-sxm"));
  return *model;
}

/// NVLink 4 on an H100 SXM: 450 GB/s per direction, 2 us per ring step (round numbers for hand-checked tests).
inline AlphaBetaComm nvlink_ring(int tp) { return AlphaBetaComm(tp, Bandwidth{450e9}, Time::us(2)); }

}  // namespace cs::testing
