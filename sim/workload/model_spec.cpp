#include "sim/workload/model_spec.hpp"

#include <filesystem>

#include "sim/core/data_dir.hpp"
#include "sim/input/input_node.hpp"

namespace cs {

double ModelSpec::attention_params() const noexcept {
  const double h = static_cast<double>(hidden);
  return h * (h + 2.0 * static_cast<double>(kv_dim())) + h * h;
}

double ModelSpec::ffn_params(bool expert) const noexcept {
  const double f = static_cast<double>(expert ? expert_ffn_hidden : ffn_hidden);
  return static_cast<double>(hidden) * f * (gated_ffn ? 3.0 : 2.0);
}

double ModelSpec::total_params() const noexcept {
  const double embed = static_cast<double>(vocab) * static_cast<double>(hidden) * (tied_embeddings ? 1.0 : 2.0);
  if (!is_moe()) return embed + layers * (attention_params() + ffn_params());
  const int moe_layers = layers - dense_layers;
  const double moe_ffn = (experts + shared_experts) * ffn_params(true) + static_cast<double>(hidden) * experts;
  return embed + layers * attention_params() + dense_layers * ffn_params() + moe_layers * moe_ffn;
}

double ModelSpec::active_params() const noexcept {
  if (!is_moe()) return total_params();
  const double embed = static_cast<double>(vocab) * static_cast<double>(hidden) * (tied_embeddings ? 1.0 : 2.0);
  const int moe_layers = layers - dense_layers;
  return embed + layers * attention_params() + dense_layers * ffn_params() +
         moe_layers * (top_k + shared_experts) * ffn_params(true);
}

namespace {

/// Reads every dimension key present in `n` into `m`; returns nothing, validation happens after merging.
void read_dimensions(const InputNode& n, ModelSpec& m) {
  m.name = n.get_or<std::string>("name", m.name);
  m.layers = n.get_or<int>("layers", m.layers);
  m.hidden = n.get_or<std::int64_t>("hidden", m.hidden);
  m.heads = n.get_or<int>("heads", m.heads);
  m.kv_heads = n.get_or<int>("kv_heads", m.kv_heads);
  m.ffn_hidden = n.get_or<std::int64_t>("ffn_hidden", m.ffn_hidden);
  m.gated_ffn = n.get_or<bool>("gated_ffn", m.gated_ffn);
  m.vocab = n.get_or<std::int64_t>("vocab", m.vocab);
  m.seq_len = n.get_or<int>("seq_len", m.seq_len);
  if (auto norm = n.find("norm")) {
    const auto s = norm->as<std::string>();
    norm->require(s == "layernorm" || s == "rmsnorm", "must be layernorm or rmsnorm");
    m.norm = s == "rmsnorm" ? NormKind::rmsnorm : NormKind::layernorm;
  }
  m.tied_embeddings = n.get_or<bool>("tied_embeddings", m.tied_embeddings);
  m.experts = n.get_or<int>("experts", m.experts);
  m.top_k = n.get_or<int>("top_k", m.top_k);
  m.shared_experts = n.get_or<int>("shared_experts", m.shared_experts);
  m.expert_ffn_hidden = n.get_or<std::int64_t>("expert_ffn_hidden", m.expert_ffn_hidden);
  m.dense_layers = n.get_or<int>("dense_layers", m.dense_layers);
}

void validate(const InputNode& n, ModelSpec& m) {
  auto positive = [&](bool ok, const char* key) {
    if (!ok) (n.has(key) ? n.at(key) : n).fail(std::string(key) + " must be given and positive");
  };
  positive(m.layers > 0, "layers");
  positive(m.hidden > 0, "hidden");
  positive(m.heads > 0, "heads");
  positive(m.vocab > 0, "vocab");
  positive(m.seq_len > 0, "seq_len");
  if (m.kv_heads == 0) m.kv_heads = m.heads;
  if (m.ffn_hidden == 0) m.ffn_hidden = 4 * m.hidden;
  if (m.hidden % m.heads != 0) n.fail("hidden (" + std::to_string(m.hidden) + ") must be a multiple of heads (" + std::to_string(m.heads) + ")");
  if (m.kv_heads <= 0 || m.heads % m.kv_heads != 0) n.fail("heads must be a multiple of kv_heads");
  if (m.is_moe()) {
    if (m.top_k <= 0 || m.top_k > m.experts) n.fail("top_k must lie in 1..experts for an MoE model");
    if (m.expert_ffn_hidden == 0) m.expert_ffn_hidden = m.ffn_hidden;
    if (m.dense_layers < 0 || m.dense_layers >= m.layers) n.fail("dense_layers must lie in 0..layers-1");
  }
}

}  // namespace

ModelSpec parse_model_spec(const InputNode& section) {
  ModelSpec m;
  if (auto preset = section.find("preset")) {
    const std::string name = preset->as<std::string>();
    const std::string path = data_path("models/" + name + ".yaml");
    if (!std::filesystem::is_regular_file(path)) preset->fail("unknown model preset \"" + name + "\" (no " + path + ")");
    const InputNode p = InputNode::load_file(path);
    const int version = p.get<int>("format_version");
    p.at("format_version").require(version == 1, "unsupported model format_version");
    read_dimensions(p, m);
    p.finish();
    validate(p, m);
  }
  read_dimensions(section, m);
  section.finish();
  validate(section, m);
  return m;
}

}  // namespace cs
