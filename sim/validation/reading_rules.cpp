#include "sim/validation/reading_rules.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

#include "sim/core/data_dir.hpp"
#include "sim/input/input_node.hpp"
#include "sim/validation/recipe_table.hpp"
#include "sim/workload/workload_params.hpp"

namespace cs {

namespace {

std::string lowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

std::vector<std::string> phrases(const InputNode& rule, const char* key) {
  std::vector<std::string> out;
  if (auto n = rule.find(key)) {
    for (const InputNode& e : n->elements()) {
      const std::string p = e.as<std::string>();
      e.require(!p.empty() && p == lowered(p), "a phrase must be non-empty and lower-case (cells are read lower-cased)");
      out.push_back(p);
    }
  }
  return out;
}

void collect_keys(const InputNode& n, const std::string& prefix, std::set<std::string>& keys) {
  for (const std::string& k : n.keys()) {
    const InputNode v = n.at(k);
    if (v.is_map()) {
      collect_keys(v, prefix + k + ".", keys);
    } else {
      keys.insert(prefix + k);
    }
  }
}

/// `text` with every "$number" replaced by `number`.
std::string fill(std::string text, const std::string& number) {
  for (std::size_t at = text.find("$number"); at != std::string::npos; at = text.find("$number", at)) {
    text.replace(at, 7, number);
    at += number.size();
  }
  return text;
}

void read_settings(const InputNode& root, ParallelPlan& plan, TrainingConfig& training) {
  root.allow_only({"parallelism", "training", "measured"});
  if (auto p = root.find("parallelism")) parallel_plan_params().read_overlay(*p, plan);
  if (auto t = root.find("training")) training_params().read_overlay(*t, training);
  if (auto m = root.find("measured")) {
    // How the row's figure was counted, not a scenario setting.
    m->allow_only({"counts_recompute"});
    m->at("counts_recompute").require(m->at("counts_recompute").as<bool>(), "must be true where a rule states it");
    m->finish();
  }
  root.finish();
}

}  // namespace

bool states_on(const std::string& s, const std::string& what) {
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) {
    const std::string before = s.substr(at >= 12 ? at - 12 : 0, at >= 12 ? 12 : at);
    const std::string after = s.substr(at + what.size(), 14);
    const bool negated_before = before.ends_with("no ") || before.ends_with("not ") || before.ends_with("without ") ||
                                before.ends_with("disabled ") || before.ends_with("disable ");
    const bool negated_after = after.starts_with("=false") || after.starts_with(" false") ||
                               after.starts_with(": false") || after.starts_with(" off") || after.starts_with("=0") ||
                               after.starts_with(" disabled") || after.starts_with(" = false") ||
                               after.starts_with(" none") || after.starts_with("=none") || after.starts_with(": none") ||
                               after.starts_with(" not enabled") || after.starts_with(" not set");
    if (!negated_before && !negated_after) return true;
  }
  return false;
}

bool RowOverlay::sets(const std::string& dotted_key) const {
  return std::any_of(settings.begin(), settings.end(), [&](const AppliedRule& a) {
    return std::any_of(a.keys.begin(), a.keys.end(), [&](const std::string& k) {
      return k == dotted_key || (k.size() > dotted_key.size() && k.starts_with(dotted_key) && k[dotted_key.size()] == '.');
    });
  });
}

namespace {

/// One rule of the file, checked: its settings are read once over defaults (with 1 for a number), so a bad key or
/// value is reported at the file's line before any row is read.
/// A list of column names (`read:`), at least one.
std::vector<std::string> column_list(const InputNode& n) {
  std::vector<std::string> out;
  for (const InputNode& e : n.elements()) out.push_back(e.as<std::string>());
  n.require(!out.empty(), "names at least one column");
  return out;
}

ReadingRule read_rule(const InputNode& n, const std::string& path, const std::vector<std::string>& default_columns) {
  n.allow_only({"name", "says", "models", "phase", "where", "read", "stated", "contains", "all", "and_any",
                "unless", "release", "number_after", "list_after", "list_into", "traits", "set"});
  ReadingRule rule;
  rule.name = n.get<std::string>("name");
  rule.says = n.get_or<std::string>("says", "");
  const std::string models = n.get_or<std::string>("models", "any");
  if (models != "any" && models != "moe") n.at("models").fail("must be any or moe, got \"" + models + "\"");
  rule.moe_only = models == "moe";
  const std::string phase = n.get_or<std::string>("phase", "scenario");
  if (phase != "scenario" && phase != "layout" && phase != "stack") {
    n.at("phase").fail("must be scenario, layout or stack, got \"" + phase + "\"");
  }
  rule.layout = phase == "layout";
  rule.stack = phase == "stack";
  if (auto w = n.find("where")) {
    for (const std::string& column : w->keys()) {
      const InputNode v = w->at(column);
      std::vector<std::string> any;
      if (v.is_sequence()) {
        any = phrases(*w, column.c_str());
      } else {
        any.push_back(v.as<std::string>());
        v.require(!any[0].empty() && any[0] == lowered(any[0]), "a phrase must be non-empty and lower-case");
      }
      v.require(!any.empty(), "names at least one phrase");
      rule.where.emplace_back(column, std::move(any));
    }
  }
  if (auto r = n.find("release")) {
    // A container release YY.MM ("25.12"): the first one the cells name is compared with it.
    r->allow_only({"through", "from"});
    const auto release = [&](const char* key) {
      const std::string v = r->get_or<std::string>(key, "");
      if (!v.empty()) r->at(key).require(first_container_release(v) == v, "must be a container release YY.MM (25.12)");
      return v;
    };
    rule.release_through = release("through");
    rule.release_from = release("from");
    r->require(!rule.release_through.empty() || !rule.release_from.empty(), "needs through or from");
    r->finish();
  }
  if (auto t = n.find("traits")) {
    t->require(rule.stack, "only a stack rule (phase: stack) names traits");
    for (const InputNode& e : t->elements()) {
      const std::string trait = e.as<std::string>();
      e.require(std::find_if(std::begin(kStackTraits), std::end(kStackTraits),
                             [&](const char* k) { return trait == k; }) != std::end(kStackTraits),
                "unknown trait \"" + trait + "\" (megatron_layouts, distributed_optimizer, nvidia_recipes, "
                "release_recipes)");
      rule.traits.push_back(trait);
    }
  }
  rule.columns = n.has("read") ? column_list(n.at("read")) : default_columns;
  rule.stated = phrases(n, "stated");
  rule.contains = phrases(n, "contains");
  rule.all = phrases(n, "all");
  rule.and_any = phrases(n, "and_any");
  rule.unless = phrases(n, "unless");
  rule.list_after = phrases(n, "list_after");
  n.require(!rule.stated.empty() || !rule.contains.empty() || !rule.all.empty() || n.has("number_after") ||
                !rule.list_after.empty() || n.has("release"),
            "rule \"" + rule.name + "\" looks for nothing (stated, contains, all, release, number_after or list_after)");
  rule.number_after = lowered(n.get_or<std::string>("number_after", ""));
  if (!rule.list_after.empty()) {
    n.require(!n.has("set"), "a list rule states the keys its list names (list_into); it takes no set");
    const InputNode into = n.at("list_into");
    rule.list_into = into.as<std::string>();
    const std::string prefix = "training.";
    const ParamSection* section = rule.list_into.starts_with(prefix)
                                      ? training_params().schema().find_section(rule.list_into.substr(prefix.size()))
                                      : nullptr;
    into.require(section != nullptr, "must name a section of training keys (training.cuda_graph_modules)");
    for (const ParamSpec& p : section->params) {
      into.require(p.type == ParamType::boolean, "every key of " + rule.list_into + " must be a boolean");
      rule.list_words.insert(p.key);
    }
  } else if (rule.stack && !rule.traits.empty() && !n.has("set")) {
    // A stack rule may only name traits.
  } else {
    n.require(!rule.stack || !n.has("number_after"), "a stack rule takes no number_after");
    const InputNode set = n.at("set");
    set.require(set.is_map(), "must be a mapping of scenario keys (parallelism: ..., training: ...)");
    collect_keys(set, "", rule.keys);
    rule.settings = set.yaml_text();
    set.require(has(rule.settings, "$number") == !rule.number_after.empty(),
                "$number appears in set exactly when number_after is given");
    ParallelPlan plan;
    TrainingConfig training;
    if (rule.number_after.empty()) {
      read_settings(set, plan, training);
    } else {
      read_settings(InputNode::parse(fill(rule.settings, "1"), path + " (rule " + rule.name + ")"), plan, training);
    }
  }
  n.finish();
  return rule;
}

/// The phrases that mean a row speaks of each aspect a release recipe sets (validation.cpp's recipe_words), and
/// the row's columns they are looked for in (`read`).
std::map<std::string, std::vector<std::string>> read_recipe_aspects(const InputNode& aspects,
                                                                    std::vector<std::string>& columns) {
  std::map<std::string, std::vector<std::string>> out;
  aspects.allow_only({"read", "a2a_overlap", "dispatcher", "cuda_graphs"});
  columns = column_list(aspects.at("read"));
  for (const char* a : {"a2a_overlap", "dispatcher", "cuda_graphs"}) {
    std::vector<std::string> words = phrases(aspects, a);
    aspects.at(a).require(!words.empty(), "needs at least one phrase");
    out[a] = std::move(words);
  }
  aspects.finish();
  return out;
}

/// A list rule's settings: a boolean key of its section for each identifier the row lists after a lead phrase
/// (up to the next "(", ")", ";" or "."); nothing when the row lists none.
std::optional<AppliedRule> list_settings(const ReadingRule& rule, const std::string& text) {
  std::set<std::string> words;
  for (const std::string& lead : rule.list_after) {
    for (std::size_t at = text.find(lead); at != std::string::npos; at = text.find(lead, at + 1)) {
      const std::size_t from = at + lead.size();
      const std::string list = text.substr(from, text.find_first_of("();.", from) - from);
      std::size_t i = 0;
      while (i < list.size()) {
        const std::size_t j = list.find_first_not_of("abcdefghijklmnopqrstuvwxyz_", i);
        const std::string word = list.substr(i, j == std::string::npos ? std::string::npos : j - i);
        if (rule.list_words.contains(word)) words.insert(word);
        i = j == std::string::npos ? list.size() : j + 1;
      }
    }
  }
  if (words.empty()) return std::nullopt;
  const std::string section = rule.list_into.substr(rule.list_into.find('.') + 1);
  AppliedRule a{&rule, "training:\n  " + section + ":\n", {}};
  for (const std::string& w : words) {
    a.settings += "    " + w + ": true\n";
    a.keys.insert(rule.list_into + "." + w);
  }
  return a;
}

}  // namespace

ReadingRules ReadingRules::load(const std::string& path) {
  const InputNode root = InputNode::load_file(path);
  root.allow_only({"read", "defaults", "rules", "recipe_aspects"});
  ReadingRules r;
  r.file_ = path;
  {
    // What every row runs unless its stack or its own words say otherwise: a stack rule that always matches.
    const InputNode d = root.at("defaults");
    d.require(d.is_map(), "must be a mapping of scenario keys (training: ...)");
    r.defaults_.name = "defaults";
    r.defaults_.stack = true;
    collect_keys(d, "", r.defaults_.keys);
    r.defaults_.settings = d.yaml_text();
    ParallelPlan plan;
    TrainingConfig training;
    read_settings(d, plan, training);
  }
  r.recipe_aspects_ = read_recipe_aspects(root.at("recipe_aspects"), r.recipe_aspect_columns_);
  const std::vector<std::string> default_columns = column_list(root.at("read"));
  std::set<std::string> names;
  for (const InputNode& n : root.at("rules").elements()) {
    ReadingRule rule = read_rule(n, path, default_columns);
    n.at("name").require(names.insert(rule.name).second, "rule \"" + rule.name + "\" is named twice");
    r.rules_.push_back(std::move(rule));
  }
  root.finish();
  return r;
}

const ReadingRules& ReadingRules::shipped() {
  static const ReadingRules r = load(data_path("data/validation/reading_rules.yaml"));
  return r;
}

bool ReadingRules::speaks_of(const std::string& aspect, const RowCells& cell) const {
  const auto it = recipe_aspects_.find(aspect);
  if (it == recipe_aspects_.end()) throw std::invalid_argument("no recipe aspect \"" + aspect + "\"");
  std::string text;
  for (const std::string& c : recipe_aspect_columns_) text += lowered(cell(c)) + " ";
  return std::any_of(it->second.begin(), it->second.end(), [&](const std::string& p) { return has(text, p); });
}

namespace {

bool has_any(const std::string& text, const std::vector<std::string>& phrases) {
  return std::any_of(phrases.begin(), phrases.end(), [&](const std::string& p) { return has(text, p); });
}

/// The number right after `phrase` in `text` ("etp=2" -> "2"), if any.
std::optional<std::string> number_after(const std::string& text, const std::string& phrase) {
  const std::size_t at = text.find(phrase);
  if (at == std::string::npos) return std::nullopt;
  const std::size_t from = at + phrase.size();
  std::size_t to = from;
  while (to < text.size() && (std::isdigit(static_cast<unsigned char>(text[to])) || text[to] == '.')) ++to;
  if (to == from) return std::nullopt;
  return text.substr(from, to - from);
}

/// Whether `text` holds what a phrase rule looks for: a phrase of `stated` stated on, one of `contains`, every
/// one of `all`, or a container release in the rule's range.
bool phrases_match(const ReadingRule& rule, const std::string& text) {
  const bool stated = std::any_of(rule.stated.begin(), rule.stated.end(),
                                  [&](const std::string& p) { return states_on(text, p); });
  const bool every = !rule.all.empty() && std::all_of(rule.all.begin(), rule.all.end(),
                                                      [&](const std::string& p) { return has(text, p); });
  bool in_range = false;
  if (!rule.release_through.empty() || !rule.release_from.empty()) {
    // YY.MM[.PP] against YY.MM: the year and month decide.
    if (const std::string r = first_container_release(text); !r.empty()) {
      const std::string month = r.substr(0, 5);
      in_range = (rule.release_through.empty() || month <= rule.release_through) &&
                 (rule.release_from.empty() || month >= rule.release_from);
    }
  }
  return stated || every || in_range || has_any(text, rule.contains);
}

/// The rule's settings where the row's cells hold what it looks for; `text` receives the cells it read, as written.
std::optional<AppliedRule> match(const ReadingRule& rule, const RowCells& cell, bool moe, std::string& text) {
  if (rule.moe_only && !moe) return std::nullopt;
  const auto where_holds = [&](const auto& w) {
    const std::string c = lowered(cell(w.first));
    return std::any_of(w.second.begin(), w.second.end(), [&](const std::string& p) { return has(c, p); });
  };
  if (!std::all_of(rule.where.begin(), rule.where.end(), where_holds)) return std::nullopt;
  text.clear();
  for (const std::string& c : rule.columns) text += cell(c) + " ";
  const std::string low = lowered(text);
  if (has_any(low, rule.unless)) return std::nullopt;
  if (!rule.and_any.empty() && !has_any(low, rule.and_any)) return std::nullopt;
  if (!rule.list_after.empty()) return list_settings(rule, low);
  if (!rule.number_after.empty()) {
    if (const auto n = number_after(low, rule.number_after)) return AppliedRule{&rule, fill(rule.settings, *n), rule.keys};
    return std::nullopt;
  }
  if (phrases_match(rule, low)) return AppliedRule{&rule, rule.settings, rule.keys};
  return std::nullopt;
}

void add_says(std::vector<std::string>& says, const std::string& what) {
  if (!what.empty() && std::find(says.begin(), says.end(), what) == says.end()) says.push_back(what);
}

}  // namespace

RowOverlay ReadingRules::read(const RowCells& cell, bool moe) const {
  RowOverlay o;
  std::string text;
  for (const ReadingRule& rule : rules_) {
    if (rule.stack) continue;
    std::optional<AppliedRule> applied = match(rule, cell, moe, text);
    if (!applied) continue;
    o.settings.push_back(std::move(*applied));
    add_says(o.says, rule.says);
  }
  return o;
}

RowStack ReadingRules::read_stack(const RowCells& cell, bool moe) const {
  RowStack s;
  s.settings.push_back(AppliedRule{&defaults_, defaults_.settings, defaults_.keys});
  std::string text;
  for (const ReadingRule& rule : rules_) {
    if (!rule.stack) continue;
    std::optional<AppliedRule> applied = match(rule, cell, moe, text);
    if (!applied) continue;
    for (const std::string& t : rule.traits) s.traits[t] = text;
    if (!rule.settings.empty()) s.settings.push_back(std::move(*applied));
  }
  return s;
}

std::string RowStack::text(const std::string& trait) const {
  const auto it = traits.find(trait);
  return it == traits.end() ? std::string() : it->second;
}

std::optional<std::string> RowOverlay::stated(const std::string& dotted_key) const {
  std::optional<std::string> value;
  for (const AppliedRule& a : settings) {
    if (!a.keys.contains(dotted_key)) continue;
    YAML::Node n = YAML::Load(a.settings);
    for (const std::string& part : split_dotted_key(dotted_key)) n = n[part];
    if (n && n.IsScalar()) value = n.Scalar();
  }
  return value;
}

void apply_overlay(const RowOverlay& overlay, const std::string& file, ParallelPlan& plan, TrainingConfig& training) {
  for (const AppliedRule& a : overlay.settings) {
    if (a.rule->layout) continue;
    read_settings(InputNode::parse(a.settings, file + " (rule " + a.rule->name + ")"), plan, training);
  }
}

std::vector<std::string> apply_stack(const RowStack& stack, const RowOverlay& overlay, const std::string& file,
                                     ParallelPlan& plan, TrainingConfig& training) {
  std::vector<std::string> says;
  for (const AppliedRule& a : stack.settings) {
    read_settings(InputNode::parse(a.settings, file + " (rule " + a.rule->name + ")"), plan, training);
    if (std::none_of(a.keys.begin(), a.keys.end(), [&](const std::string& k) { return overlay.sets(k); })) {
      add_says(says, a.rule->says);
    }
  }
  return says;
}

}  // namespace cs
