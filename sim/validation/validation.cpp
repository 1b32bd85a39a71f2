#include "sim/validation/validation.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "sim/validation/reading_rules.hpp"
#include "sim/validation/recipe_table.hpp"
#include "sim/scenario/runner.hpp"
#include "sim/workload/framework_profile.hpp"
#include "sim/workload/model_zoo.hpp"
#include "sim/workload/pipeline_schedule.hpp"

namespace cs {
namespace {

std::optional<double> number(const std::string& s) {
  // Leading number of the cell ("3 (Calculon encoding)" -> 3); empty or non-numeric -> nullopt.
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end == s.data()) return std::nullopt;
  return v;
}

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }


/// What a Megatron-Bridge row's release recipe says, in the words the reading rules read (their `recipe` column),
/// for each aspect the row does not speak of (reading_rules.yaml's recipe_aspects: a row's own words always win);
/// `applied` lists them.
std::string recipe_words(const Recipe& r, const RowCells& cell, std::vector<std::string>& applied) {
  const auto mentions = [&](const char* aspect) { return ReadingRules::shipped().speaks_of(aspect, cell); };
  std::string out;
  if (r.a2a_overlap && !mentions("a2a_overlap")) {
    out += " moe_a2a_overlap on.";
    applied.push_back("merged forward-backward schedule (moe_a2a_overlap)");
  }
  if ((r.dispatcher == "deepep" || r.dispatcher == "hybridep") && !mentions("dispatcher")) {
    out += " " + r.dispatcher + " dispatcher.";
    applied.push_back(r.dispatcher + " dispatcher");
  }
  if (!mentions("cuda_graphs")) {
    if (r.graph_impl == "transformer_engine" && !r.graph_scope.empty()) {
      std::string scope = r.graph_scope;
      for (char& ch : scope) ch = ch == ' ' ? ',' : ch;
      out += " CUDA graphs of " + scope + ".";
      applied.push_back("CUDA graphs of " + r.graph_scope);
    } else if (r.graph_impl == "full_iteration" || (r.graph_impl == "local" && r.graph_scope == "full_iteration")) {
      out += " CUDA graphs, full iteration.";
      applied.push_back("full-iteration CUDA graphs");
    }
  }
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

/// The safest quantity `row` measures and its value; none when it measures nothing to compare.
std::optional<std::pair<std::string, double>> measured_quantity(const CsvTable& t, const CsvTable::Row& row) {
  for (const auto& [quantity, column] : kComparedQuantities) {
    if (const auto v = number(t.cell(row, column))) return std::pair<std::string, double>{quantity, *v};
  }
  return std::nullopt;
}

/// 2 -> "2nd", 3 -> "3rd", 6 -> "6th", 11 -> "11th".
std::string ordinal(int n) {
  const int tens = n % 100, ones = n % 10;
  const char* suffix = tens >= 11 && tens <= 13 ? "th" : ones == 1 ? "st" : ones == 2 ? "nd" : ones == 3 ? "rd" : "th";
  return std::to_string(n) + suffix;
}

}  // namespace

const std::vector<std::string>& validation_columns() {
  static const std::vector<std::string> cols{
      "row_id", "source", "hardware", "gpu_count", "gpus_per_node", "model", "num_layers", "hidden_size",
      "num_heads", "num_kv_heads", "ffn_hidden_size", "vocab_size", "seq_len", "moe_experts", "moe_topk",
      "moe_ffn_hidden", "tp", "pp", "dp", "cp", "ep", "vpp_interleave", "zero_fsdp", "sequence_parallel",
      "act_recompute", "global_batch_seqs", "micro_batch", "precision", "framework", "meas_step_time_s",
      "meas_tflops_per_gpu", "meas_tokens_per_s_per_gpu", "meas_mfu_pct", "meas_other", "notes"};
  return cols;
}

bool hardware_profile(const std::string& hw, std::string& profile, std::string& topology, std::string& skip) {
  const std::string uhw = [&] {
    std::string u = hw;
    for (char& ch : u) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return u;
  }();
  // Hopper parts whose names contain an SXM part's but whose memory, power and nodes differ: not priced as it.
  if (contains(uhw, "GH200") || (contains(uhw, "H100") && (contains(uhw, "PCIE") || contains(uhw, " NVL")))) {
    skip = "hardware \"" + hw + "\" has no device profile (GH200, H100 PCIe and H100 NVL differ from the SXM parts in "
           "memory, power and node)";
    return false;
  }
  // The export variants first (a cell may name the parent too): their parent's compute, NVLink cut to 400 GB/s.
  if (contains(uhw, "A800")) { profile = "a800-sxm"; topology = "hgx-a800"; }
  else if (contains(uhw, "H800")) { profile = "h800-sxm"; topology = "hgx-h800"; }
  else if (contains(uhw, "A100")) { profile = "a100-sxm"; topology = "dgx-a100"; }
  else if (contains(uhw, "H200")) { profile = "h200"; topology = "dgx-h200"; }
  // The H100 SXM is the H200's compute die under the same 700 W limit: its rows use the H200's measured GEMM and
  // attention fits and power-cap model (sustained clocks), with the H100's own HBM (docs/validation.md).
  else if (contains(uhw, "H100")) { profile = "h100-sxm"; topology = "dgx-h100"; }
  // Blackwell Ultra: GB300 NVL72 racks (64-GPU NVLink domains, ConnectX-8 at 800 Gb/s; topologies/gb300-nvl72.yaml)
  // before the B300 ("GB300" contains it), and both before the GB200 and B200 branches, so that no Blackwell Ultra
  // name is priced as either.
  else if (contains(uhw, "GB300")) { profile = "gb300"; topology = "gb300-nvl72"; }
  else if (contains(uhw, "B300")) { profile = "b300"; topology = "dgx-b300"; }
  // Grace-Blackwell NVL72 racks: the B200's die at 1,200 W in 64-GPU NVLink domains (topologies/gb200-nvl72.yaml).
  // Before the B200, whose name "GB200" contains.
  else if (contains(uhw, "GB200")) { profile = "gb200"; topology = "gb200-nvl72"; }
  // The B200 has no calibration of this project's: its datasheet peaks at the GEMM, attention and HBM efficiencies
  // published measurements give (profiles/b200.yaml), in DGX B200 nodes.
  else if (contains(uhw, "B200")) { profile = "b200"; topology = "dgx-b200"; }
  else { skip = "hardware \"" + hw + "\" has no device profile"; return false; }
  return true;
}

std::optional<Scenario> scenario_from_row(const CsvTable& t, const CsvTable::Row& row, std::string& skip,
                                          std::vector<std::string>& assumptions, const LayoutChooser& choose) {
  auto cell = [&](const char* c) -> const std::string& { return t.cell(row, c); };
  auto num = [&](const char* c) { return number(cell(c)); };
  const SourceLocation where{t.file(), row.line, 0};
  Scenario sc;
  sc.file = t.file() + ":" + std::to_string(row.line);
  sc.name = "row " + cell("row_id") + ": " + cell("model");

  const std::string hw = cell("hardware");
  std::string profile, topology;
  if (!hardware_profile(hw, profile, topology, skip)) return std::nullopt;
  // The part's profile, parsed once for the row (its rules below and the scenario read it).
  std::optional<DeviceProfile> part;
  const auto part_profile = [&]() -> const DeviceProfile& {
    if (!part) part = find_device_profile(profile);
    return *part;
  };

  // Hybrid state-space models (Mamba layers beside attention) are priced from a preset's layer pattern (below).
  const bool hybrid_row = [&] {
    const std::string what = lower(cell("arch_type") + " " + cell("model"));
    return contains(what, "mamba") || contains(what, "nemotron-h") || contains(what, "nemotronh") ||
           contains(what, "nemotron_3") || contains(what, "nemotron 3") || contains(what, "jamba") ||
           contains(what, "zamba") || contains(what, "hybrid") || contains(what, "ssm");
  }();

  const auto gpus = num("gpu_count");
  if (!gpus || *gpus <= 0) { skip = "gpu_count missing"; return std::nullopt; }
  sc.gpus = static_cast<int>(*gpus);

  ModelSpec& m = sc.model;
  m.name = cell("model");
  const auto layers = num("num_layers"), hidden = num("hidden_size");
  bool by_name = false;  // the row names a preset and gives no dimensions
  if (layers && hidden) {
    m.layers = static_cast<int>(*layers);
    m.hidden = static_cast<std::int64_t>(*hidden);
  } else if (const auto named = match_preset_by_name(m.name)) {
    by_name = true;
    // A published name without dimensions ("GPT3-20B"): the preset of that family and size, whose dimensions
    // then fill the rest below like any other match.
    m.layers = named->second.layers;
    m.hidden = named->second.hidden;
    assumptions.push_back("architecture of preset " + named->first + " (the row names the model, gives no dimensions)");
  } else {
    skip = "architecture (layers, hidden size) not given";
    return std::nullopt;
  }
  const auto heads = num("num_heads"), kv_heads = num("num_kv_heads"), ffn = num("ffn_hidden_size");
  const auto experts = num("moe_experts");
  // The preset of models/ with these dimensions fills what the row leaves out (general rule, not per row).
  KnownDimensions known{m.hidden, m.layers, {}, {}, {}, {}, m.name};
  if (heads) known.heads = static_cast<int>(*heads);
  if (kv_heads) known.kv_heads = static_cast<int>(*kv_heads);
  if (ffn) known.ffn_hidden = static_cast<std::int64_t>(*ffn);
  if (experts && *experts > 0) known.experts = static_cast<int>(*experts);
  const auto preset = match_preset(known);
  const ModelSpec* z = preset ? &preset->second : nullptr;
  std::vector<std::string> filled;
  if (heads) m.heads = static_cast<int>(*heads);
  else if (z) { m.heads = z->heads; filled.push_back("heads"); }
  else {
    m.heads = static_cast<int>(m.hidden / 128);
    assumptions.push_back("heads = hidden/128");
  }
  if (kv_heads) m.kv_heads = static_cast<int>(*kv_heads);
  else if (z) { m.kv_heads = z->kv_heads; filled.push_back("kv_heads"); }
  else m.kv_heads = m.heads;
  // The rows have no head-width column: a preset whose heads are not hidden/heads wide (Qwen3) says so.
  if (z && z->head_width > 0 && z->heads == m.heads) {
    m.head_width = z->head_width;
    filled.push_back("head_dim " + std::to_string(z->head_width));
  }
  // Nor a column for the attention kind: a preset with multi-head latent attention (DeepSeek) brings it.
  if (z && z->is_mla() && z->heads == m.heads) {
    m.kv_lora_rank = z->kv_lora_rank;
    m.q_lora_rank = z->q_lora_rank;
    m.rope_head_dim = z->rope_head_dim;
    m.v_head_width = z->v_head_width;
    m.kv_heads = m.heads;
    filled.push_back("multi-head latent attention");
  }
  // Nor for sliding-window attention: a preset whose layers attend within a window (GPT-OSS) brings it.
  if (z && z->sliding_window > 0 && z->heads == m.heads) {
    m.sliding_window = z->sliding_window;
    m.full_attention_every = z->full_attention_every;
    filled.push_back("sliding window " + std::to_string(z->sliding_window) +
                     (z->full_attention_every > 0 ? " in all but every " + ordinal(z->full_attention_every) + " layer"
                                                  : std::string()));
  }
  // Nor for QK norm (Qwen3), one more pass over the queries and keys.
  if (z && z->qk_norm && z->heads == m.heads) {
    m.qk_norm = true;
    filled.push_back("QK norm");
  }
  // Nor for YaRN's scaling or biased experts (GPT-OSS), which change how Megatron-Core runs RoPE and the experts.
  if (z && z->heads == m.heads && (z->rope_mscale != 1.0 || z->expert_bias)) {
    m.rope_mscale = z->rope_mscale;
    m.expert_bias = z->expert_bias;
    if (z->rope_mscale != 1.0) filled.push_back("YaRN-scaled RoPE (unfused)");
    if (z->expert_bias) filled.push_back("expert biases");
  }
  // Nor for a hybrid model's layers: a preset of the same depth brings its pattern of Mamba-2 mixers, attention
  // and MLP blocks and the mixers' dimensions (Nemotron-H, Nemotron 3).
  if (z && z->is_hybrid() && z->layers == m.layers) {
    m.hybrid_pattern = z->hybrid_pattern;
    m.mamba_heads = z->mamba_heads;
    m.mamba_head_dim = z->mamba_head_dim;
    m.mamba_state = z->mamba_state;
    m.mamba_groups = z->mamba_groups;
    m.mamba_conv = z->mamba_conv;
    m.mamba_chunk = z->mamba_chunk;
    filled.push_back("hybrid layers " + std::to_string(m.count(LayerKind::mamba)) + " Mamba-2, " +
                     std::to_string(m.count(LayerKind::attention)) + " attention, " +
                     std::to_string(m.count(LayerKind::mlp) + m.count(LayerKind::moe_mlp)) + " MLP");
  } else if (hybrid_row) {
    skip = "model \"" + cell("model") + "\" is a hybrid with state-space (Mamba) layers and no preset of models/ gives its layer pattern";
    return std::nullopt;
  }
  // Nor for multi-token prediction: a preset that trains with it (DeepSeek-V3, whose recipes keep it on) brings it.
  if (z && z->mtp_layers > 0 && z->layers == m.layers) {
    m.mtp_layers = z->mtp_layers;
    filled.push_back(std::to_string(z->mtp_layers) + " multi-token prediction module" + (z->mtp_layers > 1 ? "s" : ""));
  }
  const bool llama_like = contains(cell("model"), "LLAMA") || contains(cell("model"), "Llama");
  m.gated_ffn = z ? z->gated_ffn : llama_like;
  if (z) {
    m.norm = z->norm;
    m.tied_embeddings = z->tied_embeddings;
  }
  if (ffn) m.ffn_hidden = static_cast<std::int64_t>(*ffn);
  else if (z) { m.ffn_hidden = z->ffn_hidden; filled.push_back("ffn"); }
  else {
    m.ffn_hidden = 4 * m.hidden;
    assumptions.push_back("ffn = 4h");
  }
  if (auto v = num("vocab_size")) m.vocab = static_cast<std::int64_t>(*v);
  else if (z) { m.vocab = z->vocab; filled.push_back("vocab " + std::to_string(z->vocab)); }
  else if (contains(cell("model"), "Nemotron")) {
    m.vocab = 256000;  // the Nemotron family's SentencePiece tokenizer (Nemotron-3 and -4 model cards)
    assumptions.push_back("vocab = 256000 (Nemotron tokenizer)");
  } else {
    m.vocab = 51200;  // GPT-2 BPE padded to a multiple of 1024, Megatron-LM's default
    assumptions.push_back("vocab = 51200");
  }
  const auto seq = num("seq_len");
  if (!seq) { skip = "sequence length not given"; return std::nullopt; }
  m.seq_len = static_cast<int>(*seq);
  // A row that names its model without dimensions takes the named preset's experts too (Nemotron 3 Nano).
  const bool experts_by_name = !experts && by_name && z && z->is_moe();
  if ((experts && *experts > 0) || experts_by_name) {
    m.experts = experts_by_name ? z->experts : static_cast<int>(*experts);
    m.top_k = static_cast<int>(num("moe_topk").value_or(z && z->is_moe() ? z->top_k : 2));
    m.expert_ffn_hidden = static_cast<std::int64_t>(
        num("moe_ffn_hidden").value_or(static_cast<double>(z && z->is_moe() ? z->expert_ffn_hidden : m.ffn_hidden)));
    // "256 routed + 1 shared": the shared experts follow the routed count in the same cell.
    const std::string e = cell("moe_experts");
    if (const auto plus = e.find('+'); plus != std::string::npos && contains(e, "shared")) {
      m.shared_experts = static_cast<int>(number(e.substr(e.find_first_not_of(' ', plus + 1))).value_or(0));
    } else if (z && z->is_moe()) {
      m.shared_experts = z->shared_experts;
    }
    if (z && z->is_moe()) m.dense_layers = z->dense_layers;
    // Group-limited routing is the family's (DeepSeek-V3: a token's experts from its 4 best of 8 groups).
    if (z && z->is_moe() && z->experts == m.experts && z->router_groups > 0) {
      m.router_groups = z->router_groups;
      m.router_group_topk = z->router_group_topk;
      filled.push_back("routing to " + std::to_string(z->router_group_topk) + " of " + std::to_string(z->router_groups) + " expert groups");
    }
    if (!m.gated_ffn && !z) m.gated_ffn = true;  // every MoE family of 2024-25 (Mixtral, DeepSeek, Qwen) uses SwiGLU
  }
  if (z) assumptions.push_back("as preset " + preset->first + (filled.empty() ? std::string() : ": " + [&] {
    std::string j;
    for (const auto& f : filled) j += (j.empty() ? "" : ", ") + f;
    return j;
  }()));

  ParallelPlan& p = sc.plan;
  bool choose_layout = false;
  const auto tp = num("tp"), pp = num("pp");
  p.cp = static_cast<int>(num("cp").value_or(1));
  p.ep = static_cast<int>(num("ep").value_or(1));
  if (tp && pp) {
    p.tp = static_cast<int>(*tp);
    p.pp = static_cast<int>(*pp);
  } else if (const std::string other = cell("meas_other"); contains(other, "(TP*PP)=")) {
    // Only the model-parallel size is published: TP fills a node first (TP <= 8), PP takes the rest.
    const int mp = static_cast<int>(number(other.substr(other.find("(TP*PP)=") + 8)).value_or(1));
    p.tp = std::min(mp, 8);
    p.pp = mp / p.tp;
    assumptions.push_back("TP = min(MP, 8), PP = MP/TP");
  } else if (tp && contains(cell("zero_fsdp"), "FSDP")) {
    p.tp = static_cast<int>(*tp);
    p.pp = 1;
  } else if (choose) {
    choose_layout = true;  // chosen below, once the model, batch, precision and cluster are known
    p.tp = p.pp = 1;
  } else {
    skip = "parallel layout (TP, PP) not given";
    return std::nullopt;
  }
  p.dp = sc.gpus / (p.tp * p.pp * p.cp);
  // The framework stack the row ran on, as data/validation/reading_rules.yaml reads it (its stack rules).
  const RowCells row_cells = [&](const std::string& column) { return cell(column.c_str()); };
  const RowStack stack = ReadingRules::shipped().read_stack(row_cells, m.is_moe());
  // A Megatron-Bridge row of a release whose recipes are tabulated (data/recipes/megatron_bridge.csv): what its
  // recipe sets and the row does not say is read as if the row said it.
  std::optional<Recipe> recipe;
  std::optional<int> recipe_vp, recipe_micro_batch;  // where the recipe's layout replaces the row's (below)
  std::string recipe_text;  // the reading rules' `recipe` column
  if (stack.has("release_recipes")) {
    RecipeQuery q;
    q.container = RecipeTable::shipped().container_named_in(stack.text("release_recipes"));
    q.model = cell("model");
    q.hardware = cell("hardware");
    q.precision = cell("precision");
    q.gpus = sc.gpus;
    q.global_batch = static_cast<int>(num("global_batch_seqs").value_or(0));
    recipe = RecipeTable::shipped().find(q);
    if (recipe) {
      std::vector<std::string> applied;
      // The summaries' layout columns are at times another release's (25.11's Qwen3-30B-A3B H100 row prints
      // 25.09's VP 24 and MBS 2 where v0.2.0's config sets VP 12 and MBS 1): the benchmark runs its release's
      // config. So a layout that no config of the release sets for the model and GPU, at the config's own scale
      // (GPU count and global batch), is taken as the config's. What the row leaves blank is the config's.
      const RecipeLayout& c = recipe->layout;
      const auto stated_or = [&](const char* column, int config) {
        return static_cast<int>(num(column).value_or(config));
      };
      // (A blank virtual-pipeline size is the config's only on the config's pipeline.)
      const RecipeLayout stated{p.tp, p.pp, stated_or("vpp_interleave", p.pp == c.pp ? c.vp : 0), stated_or("cp", c.cp),
                                stated_or("ep", c.ep), stated_or("micro_batch", c.micro_batch)};
      if (!choose_layout && recipe->num_gpus == sc.gpus && recipe->global_batch == q.global_batch &&
          !RecipeTable::shipped().release_sets(q, stated)) {
        p.tp = c.tp;
        p.pp = c.pp;
        p.cp = c.cp;
        p.ep = c.ep;
        p.dp = sc.gpus / (p.tp * p.pp * p.cp);
        recipe_vp = c.vp;
        recipe_micro_batch = c.micro_batch;
        applied.push_back("layout " + c.str() + " (the row states " + stated.str() + ", which no config of the release sets)");
      }
      recipe_text = recipe_words(*recipe, row_cells, applied);
      if (recipe->recompute_modules.size() > 0 && cell("act_recompute").empty()) {
        applied.push_back("recompute modules " + recipe->recompute_modules);
      }
      if (!applied.empty()) {
        std::string list;
        for (const auto& a : applied) list += (list.empty() ? "" : ", ") + a;
        assumptions.push_back("from the recipe of Megatron-Bridge " + recipe->tag + " (NeMo " + recipe->container + ", " +
                              recipe->config + "): " + list);
      }
    }
  }
  // What the row states in prose, as data/validation/reading_rules.yaml reads it: applied below, after the
  // framework's defaults, so that the row's own words win.
  const RowOverlay overlay = ReadingRules::shipped().read(
      [&](const std::string& column) { return column == "recipe" ? recipe_text : cell(column.c_str()); }, m.is_moe());
  // NeMo 2 / Megatron-Bridge recipes (dgxc benchmarks, MLPerf implementations, performance summaries).
  const bool nemo = stack.has("nvidia_recipes");
  const std::string vpp = recipe_vp ? std::to_string(std::max(*recipe_vp, 1)) : cell("vpp_interleave");
  const bool says_dualpipe = overlay.stated("parallelism.schedule") == "dualpipe";
  if (says_dualpipe && p.pp > 1 && p.pp % 2 == 0) {
    // DeepSeek-V3's bidirectional pipeline, two model pieces per rank (arXiv 2412.19437 Sec. 3.2.1).
    p.schedule = PipelineSchedule::dualpipe;
    assumptions.push_back("DualPipe");
  } else if (auto v = recipe_vp ? std::optional<double>(*recipe_vp) : num("vpp_interleave"); v && *v > 1) {
    p.virtual_stages = static_cast<int>(*v);
    p.schedule = PipelineSchedule::interleaved;
  } else if (p.pp > 1 && (contains(vpp, "interleaved") || (vpp.empty() && nemo))) {
    // Interleaved with the framework's usual degree, one transformer layer per virtual chunk (NeMo's recipes for
    // Llama 2 13B/70B, Nemotron-4 22B/340B, GPT-3 175B), counting embedding and loss when that makes it divide.
    const int units = m.layers % p.pp == 0 ? m.layers : m.layers + 2;
    if (units % p.pp == 0 && units / p.pp > 1) {
      p.virtual_stages = units / p.pp;
      p.schedule = PipelineSchedule::interleaved;
      assumptions.push_back("interleaved, V = " + std::to_string(p.virtual_stages) + " (one layer per chunk)");
    }
  }
  const bool says_asymmetric = overlay.stated("parallelism.embedding_in_split") == "true";
  if (const int n = p.pp * p.virtual_stages; p.pp > 1 && (m.layers % n != 0 || says_asymmetric)) {
    // Megatron-Core's account_for_embedding/loss_in_pipeline_split (Llama 3.1 405B: 126 layers on PP 8 x VPP 8;
    // Llama 3's paper: one layer fewer on the first and last stage).
    if ((m.layers + 2 + m.mtp_layers) % n == 0 || says_asymmetric) {
      p.embedding_in_split = p.loss_in_split = true;
      assumptions.push_back("embedding and loss counted as pipeline layers");
    } else {
      assumptions.push_back("uneven pipeline split");
    }
  }
  if (m.is_moe()) {
    // Expert TP: as the row states ("ETP=1"), else Megatron-Core's default (= TP) where the tp x ep expert
    // groups fit a stage's ranks, else 1 (the folded layout recipes use when EP spans TP ranks).
    if (overlay.sets("parallelism.expert_tp")) {
      // the overlay's
    } else if (const int stage = p.tp * p.cp * std::max(1, sc.gpus / (p.tp * p.pp * p.cp)); stage % (p.tp * p.ep) != 0) {
      p.expert_tp = 1;
      assumptions.push_back("expert TP 1 (TP x EP exceeds a stage)");
    }
  }
  if (m.is_moe()) {
    // Token dropping, a deduplicating dispatcher, the router's padding, unfused permutation and EP overlap where
    // the row states them: the overlay's (reading_rules.yaml). Expert rows also arrive aligned for the quantised
    // GEMMs in a captured iteration (full-iteration CUDA graphs), whose static expert shapes Megatron-Bridge's
    // recipes pad in the router (moe_router_padding_for_quantization with HybridEP and the TE op fuser), and in
    // DeepSeek's own framework (DualPipe), whose DeepEP dispatch aligns each expert's rows itself
    // (expert_alignment) for its grouped GEMMs.
    if (p.schedule == PipelineSchedule::dualpipe) sc.training.moe_router_padding = true;
    // DualPipe overlaps its forward-backward couples' all-to-alls by design.
    if (p.schedule == PipelineSchedule::dualpipe) {
      if (layout_allows_ep_overlap(m, p)) {
        sc.training.overlap.ep_comm = true;
        assumptions.push_back("EP all-to-all overlapped (DualPipe's forward-backward couples)");
      } else {
        assumptions.push_back("EP overlap stated but not modelled (needs EP > 1 and, with PP > 1, interleaving)");
      }
    }
  }
  const std::string sp = cell("sequence_parallel");
  p.sequence_parallel = sp.empty() ? p.tp > 1 : sp == "yes";
  const std::string zero = cell("zero_fsdp");
  p.zero_stage = contains(zero, "FSDP") ? 3 : contains(zero, "ZeRO-1") || contains(zero, "distributed optimizer") ? 1 : 0;
  // "DDP" names the data-parallel wrapper, not an unsharded optimizer: Megatron-Bridge's tables write FSDP 0 as
  // "use DDP" (performance-summary.md, Nomenclature) while its recipes shard the optimizer
  // (use_distributed_optimizer=True, recipes/qwen/qwen3_moe.py).
  const bool wrapper_only = (zero == "DDP" || zero == "ddp") && nemo;
  if ((zero.empty() && stack.has("distributed_optimizer")) || wrapper_only) {
    p.zero_stage = 1;  // both default to the distributed optimizer (Megatron-Core --use-distributed-optimizer)
    assumptions.push_back(wrapper_only ? "distributed optimizer (DDP as the data-parallel wrapper)" : "distributed optimizer");
  }

  TrainingConfig& tr = sc.training;
  apply_framework(find_framework_profile(kDefaultFramework), tr);  // until the row says how it launches (below)
  const auto gb = num("global_batch_seqs");
  if (!gb) { skip = "global batch not given"; return std::nullopt; }
  tr.global_batch = static_cast<std::int64_t>(*gb);
  // FSDP (ZeRO-3) gathers every parameter again for each micro-batch, so its users run the largest micro-batch
  // that fits (with recompute where needed) rather than accumulate: where such a row without a pipeline states
  // neither, the fastest that fits is chosen with its layout as stated.
  const bool choose_batching = choose && !choose_layout && !recipe_micro_batch && p.zero_stage == 3 && p.pp == 1 &&
                               cell("micro_batch").empty() &&
                               cell("act_recompute").empty();
  const bool chosen = choose_layout || choose_batching;  // the chooser below decides micro-batch and recompute
  if (auto mb = recipe_micro_batch ? std::optional<double>(*recipe_micro_batch) : num("micro_batch")) {
    tr.micro_batch = static_cast<int>(*mb);
  } else {
    tr.micro_batch = 1;
    if (!chosen) assumptions.push_back("micro-batch 1");
  }
  tr.seq_len = m.seq_len;
  const std::string prec = lower(cell("precision"));
  // NVFP4 (Transformer Engine's NVFP4BlockScaling: every linear layer's GEMMs in 4 bits) is priced at the
  // profile's fp4 peak; MXFP4 training (32-element E8M0 scales) is not modelled and such a row is not compared.
  const bool nvfp4 = contains(prec, "nvfp4") || contains(prec, "fp4-nv") || prec == "fp4";
  if (contains(prec, "fp4") && !nvfp4) {
    skip = "precision \"" + cell("precision") + "\": only NVFP4 is modelled among 4-bit formats";
    return std::nullopt;
  }
  // MXFP8 (Blackwell's block-scaled fp8: "MXFP8", "FP8-MX"): fp8 whose per-block scales the tensor cores apply,
  // at the block-scaled kernels' own rate (DType::mxfp8). Its cast finds each 32-element block's scale and casts
  // in one pass (no separate amax pass, as current scaling has), writing a row-wise and a column-wise copy.
  const bool mxfp8 = contains(prec, "mxfp8") || contains(prec, "fp8-mx");
  tr.precision = nvfp4   ? DType::fp4
                 : mxfp8 ? DType::mxfp8
                 : prec.starts_with("fp8") || contains(prec, " fp8") ? DType::fp8
                 : contains(prec, "fp16") && !contains(prec, "bf16") ? DType::fp16 : DType::bf16;
  if (mxfp8) assumptions.push_back("MXFP8: block-scaled fp8 GEMMs, one-pass casts");
  // FP8 block scaling (DeepSeek-style 1x128 / 128x128 scales) runs natively on Hopper; on Blackwell Transformer
  // Engine emulates it with MXFP8 kernels (its GEMM profiling guide, TE PR #2863), so a part with MXFP8 tensor
  // cores prices it as MXFP8.
  if (tr.precision == DType::fp8 && contains(prec, "block") && part_profile().gpu.peak.count(DType::mxfp8) > 0) {
    tr.precision = DType::mxfp8;
    assumptions.push_back("FP8 block scaling on Blackwell: MXFP8 kernels (Transformer Engine emulates it with them)");
  }
  if (tr.precision == DType::fp8 || tr.precision == DType::mxfp8) {
    if (!mxfp8 && (contains(prec, "fp8-cs") || contains(prec, "current"))) tr.fp8_recipe = Fp8Recipe::current;
    // NeMo's bf16_with_fp8_mixed recipe gathers fp8 parameters (fp8_param_gather); elsewhere only when stated.
    tr.fp8_params = contains(prec, "fp8 params") || nemo;
  }
  if (tr.precision == DType::fp4) {
    // Megatron-Bridge's bf16_with_nvfp4_mixed gathers NVFP4 parameters (fp4_param_gather); a row's notes that
    // turn it off ("fp4_param_gather False", as its DeepSeek-V3 recipes do) keep 16-bit weights.
    tr.fp8_params = nemo && !overlay.sets("training.fp8_params");
    assumptions.push_back(std::string("NVFP4: fp4 GEMMs in every linear layer, casts with a per-tensor amax pass") +
                          (tr.fp8_params ? ", fp4 parameters" : ""));
  }
  if (nemo) {
    // NeMo's performance recipes reduce gradients in bf16 and, for dense models, overlap TP communication with
    // GEMMs (userbuffers). Their MoE recipes leave it off (DGX Cloud's DeepSeek-V3 launch sets
    // tp_comm_overlap false; Megatron-Bridge's Qwen3 MoE configs CommOverlapConfig(tp_comm_overlap=False)).
    tr.grad_reduce_in_fp32 = false;
    // A row whose recipe is known to leave them be says so ("no TP comm overlap", "grad_reduce_in_fp32"): the
    // overlay's, read after these defaults.
    if (p.tp > 1 && p.sequence_parallel && !tr.overlap.tp_comm && !m.is_moe() && !overlay.sets("training.overlap.tp_comm")) {
      tr.overlap.tp_comm = true;
      assumptions.push_back("TP comm overlap (NeMo recipe default)");
    }
  }
  const std::string rc = !cell("act_recompute").empty() || !recipe ? cell("act_recompute") : recipe->recompute_modules;
  tr.recompute = contains(rc, "full") ? Recompute::full : contains(rc, "selective") ? Recompute::selective : Recompute::none;
  if (rc.empty() && !chosen) assumptions.push_back("no recompute");
  // Megatron-Core's recompute modules where the row names them: only those are recomputed (the attention core
  // too where it names core_attn).
  {
    std::set<std::string> words;  // the cell's identifiers: "mlp, mla_up_proj" -> {mlp, mla_up_proj}
    std::string word;
    for (const char ch : lower(rc) + " ") {
      if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') {
        word += ch;
      } else if (!word.empty()) {
        words.insert(word);
        word.clear();
      }
    }
    RecomputeModules& rm = tr.recompute_modules;
    rm.layernorm = words.contains("layernorm") || words.contains("rmsnorm");
    // "MLA up-projection" (DeepSeek-V3's wording) as well as Megatron-Core's module name.
    rm.mla_up_proj = words.contains("mla_up_proj") || words.contains("up_proj") ||
                     (words.contains("mla") && (words.contains("up") || words.contains("upprojection")));
    rm.mlp = words.contains("mlp");
    // "SwiGLU outputs recomputed" (DeepSeek-V3 Sec. 3.3.3: the experts' SwiGLU inputs cached, outputs recomputed).
    rm.moe_act = words.contains("moe_act") || words.contains("swiglu");
    rm.moe = words.contains("moe");
    rm.shared_experts = words.contains("shared_experts");
    if (rm.bits() != 0 && tr.recompute != Recompute::full) {
      tr.recompute = words.contains("core_attn") ? Recompute::selective : Recompute::none;
      assumptions.push_back("recompute modules: " + rm.names());
    } else {
      rm = RecomputeModules{};
    }
  }
  // Every framework of these rows runs PyTorch eagerly unless its stack (reading_rules.yaml's stack rules: the
  // framework's profile and defaults) or the row says otherwise: the row captures the step in CUDA graphs
  // (training.framework cuda-graphs), or some modules only (Megatron-Core's cuda_graph_scope: attn, moe_router, ...),
  // leaving the rest eager (training.cuda_graph_modules).
  {
    const std::vector<std::string> stack_says = apply_stack(stack, overlay, ReadingRules::shipped().file(), p, tr);
    if (const FrameworkProfile& f = find_framework_profile(tr.framework);
        !overlay.sets("training.framework") && f.host_factor != 1.0) {
      assumptions.push_back(fmt::format("{}: host work per operator {:.3g}x eager PyTorch's ({})", f.title,
                                        f.host_factor, f.measured_on));
    }
    for (const std::string& a : stack_says) assumptions.push_back(a);
  }
  // What the row states, over the defaults above (reading_rules.yaml), and what depends on it.
  apply_overlay(overlay, ReadingRules::shipped().file(), p, tr);
  for (const std::string& a : overlay.says) assumptions.push_back(a);
  if (overlay.sets("training.overlap.ep_comm") && p.schedule != PipelineSchedule::dualpipe) {
    if (layout_allows_ep_overlap(m, p)) {
      assumptions.push_back("EP all-to-all overlapped (merged forward-backward 1F1B)");
    } else {
      // Megatron-Core merges forward and backward only with interleaving when there is a pipeline.
      tr.overlap.ep_comm = false;
      assumptions.push_back("EP overlap stated but not modelled (needs EP > 1 and, with PP > 1, interleaving)");
    }
  }
  if (!overlay.sets("training.framework") && tr.cuda_graph_modules.bits() != 0) {
    assumptions.push_back("CUDA graphs of " + tr.cuda_graph_modules.names() +
                          ": no eager host cost or gap there, the rest eager");
  }
  if (tr.moe_router_padding && is_quantized(tr.precision) && sc.model.is_moe()) {
    assumptions.push_back("expert rows aligned for the quantised GEMMs by the router or dispatch (no Fp8Padding copies)");
  }
  // Attention itself in fp8 (Transformer Engine's fp8_dot_product_attention), where a row in fp8 states it.
  if (tr.fp8_attention && tr.precision != DType::fp8 && tr.precision != DType::mxfp8) tr.fp8_attention = false;
  if (tr.fp8_attention) {
    // Measured means the profile lists the format's rates, whatever they are (MXFP8 with 128-wide heads runs at
    // 1.00x 16-bit's on Blackwell).
    assumptions.push_back(part_profile().attention_fp8.measured(tr.precision)
                              ? "fp8 attention at cuDNN's measured speed-up over 16-bit"
                              : "fp8 attention stated; no measured fp8 attention rate for this GPU: priced as 16-bit");
  }

  if (p.dp <= 0 || p.tp * p.pp * p.cp * p.dp != sc.gpus) {
    skip = "GPU count is not TP*PP*CP*DP";
    return std::nullopt;
  }
  if (const std::int64_t per_step = static_cast<std::int64_t>(tr.micro_batch) * p.dp;
      !choose_layout && tr.global_batch % per_step != 0) {
    // A rate per GPU (tokens/s, TFLOP/s, MFU) barely depends on the last fraction of a batch: the nearest whole
    // number of micro-batches per rank stands in. A step time does, so such a row is not compared.
    const std::int64_t rounded = std::max<std::int64_t>(1, std::llround(static_cast<double>(tr.global_batch) / per_step)) * per_step;
    if (const auto measured = measured_quantity(t, row); measured && measured->first == "step_time_s") {
      skip = "global batch " + std::to_string(tr.global_batch) + " is not a multiple of micro-batch x DP (" +
             std::to_string(per_step) + ")";
      return std::nullopt;
    }
    assumptions.push_back("global batch " + std::to_string(tr.global_batch) + " taken as " + std::to_string(rounded) +
                          " (a multiple of micro-batch x DP " + std::to_string(per_step) + "; the row measures a rate per GPU)");
    tr.global_batch = rounded;
  }
  if (p.schedule == PipelineSchedule::dualpipe && (tr.micro_batches(p) % 2 != 0 || tr.micro_batches(p) < 2 * p.pp)) {
    p.schedule = PipelineSchedule::one_f_one_b;
    tr.overlap.ep_comm = false;
    assumptions.push_back("1F1B, not DualPipe (it needs an even number of micro-batches, at least 2 x PP)");
  }
  if (p.schedule == PipelineSchedule::interleaved && tr.micro_batches(p) % p.pp != 0) {
    p.virtual_stages = 1;
    p.schedule = PipelineSchedule::one_f_one_b;
    assumptions.push_back("not interleaved (micro-batches not divisible by PP)");
  }
  try {
    // A job smaller than one node runs on part of a single node of the simulated system, down to one GPU
    // (a row's own gpus_per_node may be smaller than the DGX node it is simulated on: a 1-GPU workstation).
    sc.topology = load_topology_for_job(topology, sc.gpus);
    if (const int node_gpus = sc.topology.node().gpus; part_of_one_node(sc.gpus, node_gpus)) {
      sc.gpus = node_gpus;
      assumptions.push_back("part of one " + std::to_string(node_gpus) + "-GPU node");
    }
    sc.profile = part_profile();
  } catch (const InputError& e) {
    skip = e.what();
    return std::nullopt;
  }
  if (choose_layout || choose_batching) {
    // No schedule the row does not state: DualPipe and the zero-bubble schedules only where it says so.
    const auto stated = [](PipelineSchedule s) {
      return s == PipelineSchedule::one_f_one_b || s == PipelineSchedule::interleaved || s == PipelineSchedule::gpipe;
    };
    PlanFilter keep = [stated](const ParallelPlan& q, const Overlap&) { return stated(q.schedule); };
    // A framework that does not overlap DP communication (legacy Megatron-LM) keeps it exposed in every plan.
    const bool dp_exposed = !tr.overlap.grad_reduce;
    if (choose_layout && stack.has("megatron_layouts")) {
      // Megatron-Core shards optimizer state (its distributed optimizer, ZeRO-1) and nothing more.
      keep = [ep_comm = tr.overlap.ep_comm, stated](const ParallelPlan& q, const Overlap& o) {
        return q.zero_stage <= 1 && (ep_comm || !o.ep_comm) && stated(q.schedule);
      };
    }
    if (choose_batching) {
      // The layout as stated, and no TP or EP overlap the row's framework does not say it has.
      keep = [given = p, tp_comm = tr.overlap.tp_comm, ep_comm = tr.overlap.ep_comm](const ParallelPlan& q, const Overlap& o) {
        return q.tp == given.tp && q.pp == given.pp && q.cp == given.cp && q.dp == given.dp && q.zero_stage == 3 &&
               q.schedule == given.schedule && (tp_comm || !o.tp_comm) && (ep_comm || !o.ep_comm);
      };
    }
    if (dp_exposed) {
      keep = [inner = std::move(keep)](const ParallelPlan& q, const Overlap& o) {
        return inner(q, o) && !o.grad_reduce && !o.param_gather;
      };
    }
    const auto how = choose(sc, keep);
    if (!how) {
      skip = choose_layout ? "parallel layout not given, and no layout fits the GPUs, the batch and the memory"
                           : "no micro-batch fits the memory with the stated FSDP layout";
      return std::nullopt;
    }
    assumptions.push_back(choose_layout ? "layout not given: the fastest the plan search finds, " + *how
                                        : "micro-batch and recompute not given: the fastest that fit under FSDP "
                                          "(which gathers the parameters again for each micro-batch), " + *how);
  }
  check_plan(where, m, p, tr, sc.gpus, sc.topology.node().gpus);
  return sc;
}

namespace {

/// Fills `v` with the prediction of `row`; throws whatever planning or simulating the row throws.
void predict_into(const CsvTable& t, const CsvTable::Row& row, ValidationRow& v, const LayoutChooser& choose) {
  std::string skip;
  const auto sc = scenario_from_row(t, row, skip, v.assumptions, choose);
  if (!sc) {
    v.skipped = skip;
    return;
  }
  const RunResult r = run_scenario(*sc);
  v.fp8 = is_quantized(sc->training.precision);
  v.moe = sc->model.is_moe();
  v.step = r.step;
  v.sm_clock_mhz = r.sm_clock_mhz;
  v.memory = r.memory;
  v.memory_capacity = r.memory_capacity;
  v.calibration_p90 = band_calibration_p90(sc->profile);
  if (v.quantity == "step_time_s") v.predicted = r.step.step_time.seconds();
  else if (v.quantity == "tokens_per_s_per_gpu") v.predicted = r.tokens_per_s / r.gpus;
  else if (v.quantity == "mfu_pct") {
    // Model FLOPs over the datasheet dense peak of the training precision, as MFU is defined (PaLM, Megatron).
    v.predicted = 100 * r.mfu;
    v.assumptions.push_back(fmt::format("MFU of the datasheet {} peak ({:.0f} TFLOP/s)", to_string(sc->training.precision),
                                        r.peak_per_gpu.value() / 1e12));
  } else {
    // Sources that count recompute FLOPs (Narayanan et al. SC'21) are compared on hardware FLOPs
    // (reading_rules.yaml: measured.counts_recompute).
    const RowOverlay overlay = ReadingRules::shipped().read(
        [&](const std::string& column) { return t.cell(row, column.c_str()); }, sc->model.is_moe());
    const bool hardware = overlay.sets("measured.counts_recompute");
    const Flops f = hardware ? r.step.hardware_flops : r.step.model_flops;
    v.predicted = f.value() / r.step.step_time.seconds() / r.gpus / 1e12;
    if (hardware) v.assumptions.push_back("hardware FLOPs (source counts recompute)");
  }
  if (!r.fits_in_memory) v.assumptions.push_back("predicted OUT OF MEMORY");
}

}  // namespace

ValidationRow predict_row(const CsvTable& t, const CsvTable::Row& row, const LayoutChooser& choose) {
  ValidationRow v;
  v.id = t.cell(row, "row_id");
  v.line = row.line;
  v.source = t.cell(row, "source");
  v.model = t.cell(row, "model");
  v.gpus = static_cast<int>(number(t.cell(row, "gpu_count")).value_or(0));
  if (is_serving_row(t, row)) {
    try {
      predict_serving_row(t, row, v);
    } catch (const InputError& e) {
      v.skipped = e.message();
      if (!e.key_path().empty()) v.skipped = e.key_path() + ": " + *v.skipped;
    } catch (const std::exception& e) {
      v.skipped = std::string("could not be simulated: ") + e.what();
    }
    if (v.skipped) v.predicted = 0;
    return v;
  }
  if (const auto measured = measured_quantity(t, row)) std::tie(v.quantity, v.measured) = *measured;
  else {
    v.skipped = "measures nothing to compare (no step time, tokens/s, TFLOP/s or MFU)";
    return v;
  }
  try {
    predict_into(t, row, v, choose);
  } catch (const InputError& e) {
    v.skipped = e.message();  // a layout the planner rejects: the key and what is wrong, without the file prefix
    if (!e.key_path().empty()) v.skipped = e.key_path() + ": " + *v.skipped;
  } catch (const std::exception& e) {
    v.skipped = std::string("could not be simulated: ") + e.what();
  }
  if (v.skipped) v.predicted = 0;
  return v;
}

std::vector<ValidationRow> validate(const CsvTable& t, double level, const LayoutChooser& choose,
                                    const std::vector<Residual>& prior) {
  return validate(std::vector<CsvTable>{t}, level, choose, prior);
}

std::vector<ValidationRow> validate(const std::vector<CsvTable>& tables, double level, const LayoutChooser& choose,
                                    const std::vector<Residual>& prior) {
  // Rows are independent scenarios: predicted on every core (the core is thread-safe: sweeps run scenarios so),
  // each into its own slot, so the output keeps the files' order.
  std::vector<std::pair<const CsvTable*, const CsvTable::Row*>> work;
  for (const CsvTable& t : tables) {
    t.require_columns(validation_columns());
    for (const auto& row : t.rows()) work.emplace_back(&t, &row);
  }
  std::vector<ValidationRow> out(work.size());
  {
    std::atomic<std::size_t> next{0};
    std::mutex failed;
    std::exception_ptr error;
    const auto worker = [&] {
      for (std::size_t k = next++; k < work.size(); k = next++) {
        try {
          out[k] = predict_row(*work[k].first, *work[k].second, choose);
        } catch (...) {
          const std::lock_guard lock(failed);
          if (!error) error = std::current_exception();
        }
      }
    };
    const std::size_t threads = std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), work.size());
    std::vector<std::jthread> pool;
    for (std::size_t i = 1; i < threads; ++i) pool.emplace_back(worker);
    worker();
    pool.clear();  // joins
    if (error) std::rethrow_exception(error);
  }
  // Each residual with the position of its row, so that a row is left out by position (ids may repeat
  // across files).
  std::vector<std::pair<std::size_t, Residual>> all;
  for (std::size_t k = 0; k < out.size(); ++k) {
    for (Residual& r : residuals_of({out[k]})) all.emplace_back(k, std::move(r));
  }
  // Earlier residuals of rows outside this batch (a row of the batch is there by its own prediction, or left out).
  for (const Residual& r : prior) {
    const bool in_batch = std::any_of(out.begin(), out.end(), [&](const ValidationRow& v) { return v.id == r.id && v.source == r.source; });
    if (!in_batch) all.emplace_back(out.size(), r);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    ValidationRow& v = out[i];
    if (v.skipped) continue;
    std::vector<Residual> others;
    for (const auto& [k, r] : all) {
      if (k != i) others.push_back(r);
    }
    v.band = error_band(v.predicted_step_s(), BandQuery{v.fp8, v.moe, v.gpus}, others, v.calibration_p90, level);
    if (v.band.valid() && v.quantity != "step_time_s") {
      // Throughput-like quantities scale as 1 / step time: the band's ends swap.
      const double lo = v.predicted * v.predicted_step_s() / v.band.high, hi = v.predicted * v.predicted_step_s() / v.band.low;
      v.band.low = lo;
      v.band.high = hi;
    }
  }
  return out;
}

std::vector<Residual> residuals_of(const std::vector<ValidationRow>& rows) {
  std::vector<Residual> out;
  for (const auto& v : rows) {
    if (v.skipped || v.predicted <= 0 || v.measured <= 0) continue;
    out.push_back(Residual{v.id, v.time_ratio(), v.fp8, v.moe, v.gpus, v.calibration_p90, v.source});
  }
  return out;
}

}  // namespace cs
