#include "sim/validation/recipe_table.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "sim/core/data_dir.hpp"

namespace cs {
namespace {

std::string upper_alnum(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    if (std::isalnum(static_cast<unsigned char>(ch))) out += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  }
  return out;
}

std::string upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

/// The GPU token the configs' names use, from a row's hardware cell ("H100-SXM5-80GB (DGX-H100)" -> "H100").
std::string gpu_token(const std::string& hardware) {
  const std::string h = upper(hardware);
  for (const char* g : {"GB300", "GB200", "B300", "B200", "H200", "H100"}) {
    if (h.find(g) != std::string::npos) return g;
  }
  return {};
}

/// The precision tokens a row's precision cell may stand for, most likely first.
std::vector<std::string> precision_tokens(const std::string& precision, const std::string& gpu) {
  const std::string p = upper_alnum(precision);
  if (p.find("NVFP4") != std::string::npos) return {"NVFP4"};
  if (p.find("MX") != std::string::npos) return {"FP8_MX", "MXFP8"};
  if (p.find("CS") != std::string::npos || p.find("CURRENT") != std::string::npos) return {"FP8_CS"};
  if (p.find("SC") != std::string::npos || p.find("BLOCK") != std::string::npos) return {"FP8_SC", "FP8_BLOCK"};
  if (p.find("FP8") != std::string::npos) {
    // The summaries' bare "FP8": current scaling on Hopper, MXFP8 on Blackwell (their footnotes).
    if (gpu == "H100" || gpu == "H200") return {"FP8_CS", "FP8"};
    return {"FP8_MX", "MXFP8", "FP8_CS", "FP8"};
  }
  if (p.find("BF16") != std::string::npos) return {"BF16"};
  return {};
}

int to_int(const CsvTable& t, const CsvTable::Row& row, const std::string& column) {
  const std::string& s = t.cell(row, column);
  if (s.empty()) return 0;
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) {
    throw InputError({t.file(), row.line, 0}, column, "expected an integer, got '" + s + "'");
  }
  return v;
}

}  // namespace

std::string recipe_model_key(const std::string& model) {
  std::string m = model;
  for (std::size_t open = m.find('('); open != std::string::npos; open = m.find('(')) {
    const std::size_t close = m.find(')', open);
    m.erase(open, close == std::string::npos ? std::string::npos : close - open + 1);
  }
  return upper_alnum(m);
}

RecipeTable RecipeTable::parse(const CsvTable& t) {
  t.require_columns({"container", "bridge_tag", "model_key", "gpu", "precision", "version", "config", "source_file",
                     "num_gpus", "global_batch_size", "tensor_model_parallel_size",
                     "pipeline_model_parallel_size", "virtual_pipeline_model_parallel_size", "expert_model_parallel_size",
                     "context_parallel_size", "micro_batch_size", "moe_a2a_overlap", "moe_flex_dispatcher_backend",
                     "cuda_graph_impl", "cuda_graph_scope", "recompute_modules"});
  RecipeTable out;
  for (const auto& row : t.rows()) {
    Entry e;
    Recipe& r = e.recipe;
    r.container = t.cell(row, "container");
    r.tag = t.cell(row, "bridge_tag");
    r.config = t.cell(row, "config");
    r.source_file = t.cell(row, "source_file");
    r.num_gpus = to_int(t, row, "num_gpus");
    r.global_batch = to_int(t, row, "global_batch_size");
    RecipeLayout& l = r.layout;
    for (auto [field, column] : {std::pair{&l.tp, "tensor_model_parallel_size"}, {&l.pp, "pipeline_model_parallel_size"},
                                 {&l.vp, "virtual_pipeline_model_parallel_size"}, {&l.cp, "context_parallel_size"},
                                 {&l.ep, "expert_model_parallel_size"}, {&l.micro_batch, "micro_batch_size"}}) {
      // Empty: the config leaves it to WorkloadBaseConfig's default (1; no virtual pipeline).
      *field = t.cell(row, column).empty() ? (field == &l.vp ? 0 : 1) : to_int(t, row, column);
    }
    const std::string& overlap = t.cell(row, "moe_a2a_overlap");
    if (overlap != "true" && overlap != "false" && !overlap.empty()) {
      throw InputError({t.file(), row.line, 0}, "moe_a2a_overlap", "expected true or false, got '" + overlap + "'");
    }
    r.a2a_overlap = overlap == "true";
    r.dispatcher = t.cell(row, "moe_flex_dispatcher_backend");
    r.graph_impl = t.cell(row, "cuda_graph_impl");
    r.graph_scope = t.cell(row, "cuda_graph_scope");
    r.recompute_modules = t.cell(row, "recompute_modules");
    e.model_key = t.cell(row, "model_key");
    e.gpu = t.cell(row, "gpu");
    e.precision = t.cell(row, "precision");
    e.version = t.cell(row, "version");
    if (r.container.empty() || e.model_key.empty() || e.gpu.empty() || e.precision.empty()) {
      throw InputError({t.file(), row.line, 0}, "", "container, model_key, gpu and precision are required");
    }
    if (std::find_if(out.releases_.begin(), out.releases_.end(), [&](const auto& x) { return x.first == r.tag; }) ==
        out.releases_.end()) {
      out.releases_.emplace_back(r.tag, r.container);
    }
    out.entries_.push_back(std::move(e));
  }
  return out;
}

const RecipeTable& RecipeTable::shipped() {
  static const RecipeTable table = parse(CsvTable::load(data_path(kMegatronBridgeRecipesFile)));
  return table;
}

std::string container_release_at(const std::string& text, std::size_t at) {
  const auto digit = [&](std::size_t i) { return i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); };
  if (at > 0 && (digit(at - 1) || text[at - 1] == '.')) return {};
  if (!(digit(at) && digit(at + 1) && at + 2 < text.size() && text[at + 2] == '.' && digit(at + 3) && digit(at + 4))) return {};
  std::size_t end = at + 5;
  if (end < text.size() && text[end] == '.' && digit(end + 1) && digit(end + 2) && !digit(end + 3)) end += 3;
  if (digit(end) || (end < text.size() && text[end] == '.' && digit(end + 1))) return {};
  const int year = (text[at] - '0') * 10 + (text[at + 1] - '0'), month = (text[at + 3] - '0') * 10 + (text[at + 4] - '0');
  if (year < 23 || year > 29 || month < 1 || month > 12) return {};
  return text.substr(at, end - at);
}

std::string first_container_release(const std::string& text) {
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (std::string r = container_release_at(text, at); !r.empty()) return r;
  }
  return {};
}

std::string RecipeTable::container_named_in(const std::string& text) const {
  for (std::size_t at = text.find("NeMo "); at != std::string::npos; at = text.find("NeMo ", at + 1)) {
    if (std::string r = container_release_at(text, at + 5); !r.empty()) return r;
  }
  if (std::string r = first_container_release(text); !r.empty()) return r;
  const auto digit = [&](std::size_t i) { return i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); };
  for (const auto& [tag, container] : releases_) {
    for (std::size_t at = text.find(tag); at != std::string::npos; at = text.find(tag, at + 1)) {
      const std::size_t end = at + tag.size();
      if (!digit(end) && !(end + 1 < text.size() && text[end] == '.' && digit(end + 1))) return container;
    }
  }
  return {};
}

std::string RecipeLayout::str() const {
  std::string s = "TP " + std::to_string(tp) + ", PP " + std::to_string(pp);
  if (vp > 1) s += ", VP " + std::to_string(vp);
  if (cp != 1) s += ", CP " + std::to_string(cp);
  return s + ", EP " + std::to_string(ep) + ", MBS " + std::to_string(micro_batch);
}

namespace {

/// The model keys a row's model name may be tabulated under: its own, and without a trailing total size
/// ("DeepSeek-V3 671B": the summaries' names carry none).
std::vector<std::string> model_keys(const std::string& model) {
  std::vector<std::string> keys{recipe_model_key(model)};
  if (const std::size_t space = model.find_last_of(' '); space != std::string::npos) {
    keys.push_back(recipe_model_key(model.substr(0, space)));
  }
  return keys;
}

}  // namespace

bool RecipeTable::release_sets(const RecipeQuery& q, const RecipeLayout& layout) const {
  const std::string gpu = gpu_token(q.hardware);
  const std::vector<std::string> keys = model_keys(q.model);
  return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) {
    return e.recipe.container == q.container && e.gpu == gpu && e.recipe.layout == layout &&
           std::find(keys.begin(), keys.end(), e.model_key) != keys.end();
  });
}

std::optional<Recipe> RecipeTable::find(const RecipeQuery& q) const {
  const std::string gpu = gpu_token(q.hardware);
  if (q.container.empty() || gpu.empty()) return std::nullopt;
  for (const std::string& key : model_keys(q.model)) {
    for (const std::string& precision : precision_tokens(q.precision, gpu)) {
      const Entry* best = nullptr;
      int best_score = -1;
      for (const Entry& e : entries_) {
        if (e.recipe.container != q.container || e.model_key != key || e.gpu != gpu || e.precision != precision) continue;
        const int score = (e.recipe.num_gpus == q.gpus ? 2 : 0) +
                          (e.recipe.num_gpus == q.gpus && e.recipe.global_batch == q.global_batch ? 1 : 0);
        if (score > best_score) {  // ties: the first, V1 before V2 (the table is sorted)
          best = &e;
          best_score = score;
        }
      }
      if (best) return best->recipe;
    }
  }
  return std::nullopt;
}

}  // namespace cs
