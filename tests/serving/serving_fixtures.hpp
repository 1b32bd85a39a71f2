// Shared pieces of the serving tests: the serving rows' 1.5B Llama-style model, Llama 3 70B, the h100-sxm
// profile's cost model and a hand-checkable ring for the TP collectives.
#pragma once

#include <memory>
#include <string>

#include "sim/hardware/device_profile.hpp"
#include "sim/input/input_node.hpp"
#include "sim/serving/replica_comm.hpp"
#include "sim/workload/model_spec.hpp"

namespace cs::testing {

/// A model preset of models/ with `overrides` (YAML keys of a scenario's model: section).
inline ModelSpec preset(const std::string& name, const std::string& overrides = "") {
  return parse_model_spec(InputNode::parse("preset: " + name + "\n" + overrides, "model.yaml"));
}

/// The decoder of ../shared/validation/serving_rows.csv: Llama 3's layout at 16 layers, hidden 2048 and an 8192
/// SwiGLU (GQA 32/8, a 128,256-token vocabulary, untied output: 1.50 B parameters).
inline ModelSpec llama_1b5() {
  return preset("llama3-8b", "name: Llama-style 1.5B\nlayers: 16\nhidden: 2048\nffn_hidden: 8192\n");
}

inline ModelSpec llama3_70b() { return preset("llama3-70b"); }

/// The h100-sxm profile's cost model (its GEMM and attention fits come from the H200 calibration).
inline const ComputeCostModel& h100_cost() {
  static const std::unique_ptr<ComputeCostModel> model = make_cost_model(find_device_profile("h100-sxm"));
  return *model;
}

/// NVLink 4 on an H100 SXM: 450 GB/s per direction, 2 us per ring step (round numbers for hand-checked tests).
inline AlphaBetaComm nvlink_ring(int tp) { return AlphaBetaComm(tp, Bandwidth{450e9}, Time::us(2)); }

}  // namespace cs::testing
