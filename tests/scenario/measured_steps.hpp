// Shared by the tests that predict PyTorch steps measured on this project's H200 and H100 (profiles/*-calibration/):
// reading a measurement file, and the one-GPU scenario of a moe_step.py / host_sync_study.py entry.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "sim/scenario/runner.hpp"
#include "sim/workload/framework_profile.hpp"

namespace cs::testing {

/// The "results" array of profiles/<path> (throws when the file is missing).
inline nlohmann::json measured_results(const std::string& path) {
  std::ifstream in(std::string(CS_SOURCE_DIR) + "/profiles/" + path);
  if (!in) throw std::runtime_error("measurement file missing: " + path);
  return nlohmann::json::parse(in)["results"];
}

/// The "results" array of profiles/h200-calibration/<file>.
inline nlohmann::json h200_results(const std::string& file) { return measured_results("h200-calibration/" + file); }

/// One GPU of a DGX H200 node training the Qwen3-MoE-shaped model of one entry (a dense SwiGLU FFN of the same
/// width when it has no experts), launched eagerly: the measured kernel gap and host cost per launch, the experts'
/// GEMMs from a Python loop.
inline Scenario moe_step_on_one_h200(const nlohmann::json& m) {
  Scenario sc;
  sc.name = m["name"].get<std::string>();
  ModelSpec& model = sc.model;
  model.name = sc.name;
  model.layers = m["layers"].get<int>();
  model.hidden = m["hidden"].get<std::int64_t>();
  model.heads = m["heads"].get<int>();
  model.kv_heads = m["kv_heads"].get<int>();
  model.head_width = m["head_dim"].get<std::int64_t>();
  model.gated_ffn = true;
  model.norm = NormKind::rmsnorm;
  model.vocab = m["vocab"].get<std::int64_t>();
  model.seq_len = m["seq"].get<int>();
  model.ffn_hidden = m["expert_ffn"].get<std::int64_t>() * m["top_k"].get<int>();
  if (const int experts = m["experts"].get<int>(); experts > 0) {
    model.experts = experts;
    model.top_k = m["top_k"].get<int>();
    model.expert_ffn_hidden = m["expert_ffn"].get<std::int64_t>();
  }
  sc.gpus = 8;
  sc.topology = load_topology("dgx-h200", 8);
  sc.profile = find_device_profile("h200");
  sc.training.micro_batch = m["batch"].get<int>();
  sc.training.global_batch = sc.training.micro_batch;
  sc.training.seq_len = model.seq_len;
  apply_framework(find_framework_profile("pytorch-eager"), sc.training);
  sc.training.grouped_launch = GroupedLaunch::python;  // moe_step.py loops over its experts in Python
  sc.training.moe_permute_fusion = false;              // index_select and index_add_, PyTorch's own operators
  return sc;
}

/// The layer calibrate/studies/mcore_te_step_study.py builds (H200 run 15, H100 run 12): Qwen3-30B-A3B's attention
/// (32 heads of 128, 4 KV groups, QK norm) with SwiGLU, in `layers` layers at `seq` tokens; MoE: 16 experts of FFN
/// 768, top-8 (one GPU's expert work at EP 8), dense: FFN 6,144.
inline ModelSpec mcore_te_study_layer(int layers, bool moe, int seq) {
  ModelSpec m;
  m.name = "mcore-te";
  m.layers = layers;
  m.hidden = 2048;
  m.heads = 32;
  m.kv_heads = 4;
  m.head_width = 128;
  m.qk_norm = true;  // the study builds Qwen3's layer with qk_layernorm
  m.gated_ffn = true;
  m.norm = NormKind::rmsnorm;
  m.vocab = 32768;
  m.seq_len = seq;
  m.ffn_hidden = 6144;
  if (moe) {
    m.experts = 16;
    m.top_k = 8;
    m.expert_ffn_hidden = 768;
  }
  return m;
}

}  // namespace cs::testing
