// Published training recipes by framework release: what a measured row leaves unsaid but its release's recipe
// fixes (Megatron-Bridge's performance configs: the merged forward-backward schedule, the MoE dispatcher, the
// CUDA-graph scope, the recompute modules). data/recipes/megatron_bridge.csv, written by
// scripts/megatron_bridge_recipes.py from the public repository's release tags; read once per process and
// immutable afterwards (safe for sweep threads).
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/input/csv_table.hpp"

namespace cs {

/// The shipped recipe table, relative to the data directory.
inline constexpr const char* kMegatronBridgeRecipesFile = "data/recipes/megatron_bridge.csv";

/// A config's parallel layout as a performance summary's row states it: tensor, pipeline, virtual-pipeline (0 where
/// there is none), context and expert parallel sizes and the micro-batch.
struct RecipeLayout {
  int tp = 1, pp = 1, vp = 0, cp = 1, ep = 1, micro_batch = 1;
  /// The same layout: a virtual-pipeline size of 0 or 1 is none.
  friend bool operator==(const RecipeLayout& a, const RecipeLayout& b) {
    return a.tp == b.tp && a.pp == b.pp && std::max(a.vp, 1) == std::max(b.vp, 1) && a.cp == b.cp && a.ep == b.ep &&
           a.micro_batch == b.micro_batch;
  }
  /// "TP 1, PP 2, VP 24, EP 8, MBS 2" (CP only where it is not 1).
  [[nodiscard]] std::string str() const;
};

/// One release's config for one model, GPU and precision.
struct Recipe {
  std::string container;    ///< the NeMo container it shipped in ("25.11", "26.02.01")
  std::string tag;          ///< Megatron-Bridge's release tag ("v0.2.0")
  std::string config;       ///< the config's name in that release
  std::string source_file;  ///< where the config is, in the repository at `tag`
  int num_gpus = 0, global_batch = 0;
  RecipeLayout layout;              ///< the parallel layout and micro-batch the config sets
  bool a2a_overlap = false;        ///< moe_a2a_overlap: Megatron-Core's merged forward-backward schedule
  std::string dispatcher;          ///< moe_flex_dispatcher_backend: "", "deepep" or "hybridep"
  std::string graph_impl;          ///< cuda_graph_impl: "", "none", "transformer_engine", "local", ...
  std::string graph_scope;         ///< cuda_graph_scope, space-separated ("moe_router moe_preprocess")
  std::string recompute_modules;   ///< space-separated ("mla_up_proj mlp")
};

/// What a row names: its release's container, model, GPU and precision as the performance summary writes them.
struct RecipeQuery {
  std::string container;  ///< "25.11"
  std::string model;      ///< "Qwen3_30B_a3B", "DeepSeek-V3 671B"
  std::string hardware;   ///< "H100-SXM5-80GB (DGX-H100)"
  std::string precision;  ///< "FP8-CS", "BF16", "FP8-MX", "MXFP8", "NVFP4", "FP8"
  int gpus = 0, global_batch = 0;
};

class RecipeTable {
 public:
  /// Reads a recipe CSV; throws InputError naming the file, line and column of a missing column or bad value.
  [[nodiscard]] static RecipeTable parse(const CsvTable& t);
  /// The shipped table (kMegatronBridgeRecipesFile), loaded on first use.
  [[nodiscard]] static const RecipeTable& shipped();
  /// The recipe of `q`'s release for its model, GPU and precision; among a release's versions of it (V1, V2:
  /// other scales) the one of the row's GPU count and global batch, else of its GPU count, else the first.
  [[nodiscard]] std::optional<Recipe> find(const RecipeQuery& q) const;
  /// Whether any config of `q`'s release for its model and GPU, of any precision or scale, sets `layout`.
  [[nodiscard]] bool release_sets(const RecipeQuery& q, const RecipeLayout& layout) const;
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  /// The NeMo container a row's source or framework text names: "NeMo 25.11", else a release token of the
  /// containers' form (YY.MM or YY.MM.NN, 2024-2029: "Megatron-Bridge 26.04.01"), else a Megatron-Bridge release
  /// tag the table holds ("v0.3.1" -> "26.02.01"); "" when none.
  [[nodiscard]] std::string container_named_in(const std::string& text) const;

 private:
  struct Entry {
    Recipe recipe;
    std::string model_key, gpu, precision, version;
  };
  std::vector<Entry> entries_;
  std::vector<std::pair<std::string, std::string>> releases_;  ///< (tag, container), each once
};

/// The NeMo container release that starts at `text[at]`: YY.MM with an optional .NN (2023-2029, months 1-12),
/// not part of a longer number or version ("25.11", "26.04.01"; not "0.25.11", "125.11" or "25.11.123"); "" else.
[[nodiscard]] std::string container_release_at(const std::string& text, std::size_t at);
/// The first such release in `text`, or "".
[[nodiscard]] std::string first_container_release(const std::string& text);

/// A model name as the recipe table keys it: upper-case letters and digits, a parenthesised remark dropped
/// ("Qwen3_30B_a3B (tokendrop)" -> "QWEN330BA3B"). Lookups (find, release_sets) also try the name without a
/// trailing size of the whole model ("DeepSeek-V3 671B" -> "DEEPSEEKV3").
[[nodiscard]] std::string recipe_model_key(const std::string& model);

}  // namespace cs
