#include "sim/validation/reading_rules.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "sim/core/data_dir.hpp"
#include "sim/input/input_node.hpp"
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
  return std::any_of(settings.begin(), settings.end(), [&](const auto& s) { return s.first->keys.contains(dotted_key); });
}

ReadingRules ReadingRules::load(const std::string& path) {
  const InputNode root = InputNode::load_file(path);
  root.allow_only({"rules"});
  ReadingRules r;
  r.file_ = path;
  std::set<std::string> names;
  for (const InputNode& n : root.at("rules").elements()) {
    n.allow_only({"name", "says", "models", "where", "read", "stated", "contains", "all", "unless", "number_after",
                  "set"});
    ReadingRule rule;
    rule.name = n.get<std::string>("name");
    n.at("name").require(names.insert(rule.name).second, "rule \"" + rule.name + "\" is named twice");
    rule.says = n.get_or<std::string>("says", "");
    const std::string models = n.get_or<std::string>("models", "any");
    if (models != "any" && models != "moe") n.at("models").fail("must be any or moe, got \"" + models + "\"");
    rule.moe_only = models == "moe";
    if (auto w = n.find("where")) {
      for (const std::string& column : w->keys()) {
        const std::string phrase = w->at(column).as<std::string>();
        w->at(column).require(!phrase.empty() && phrase == lowered(phrase), "a phrase must be non-empty and lower-case");
        rule.where.emplace_back(column, phrase);
      }
    }
    rule.columns = n.has("read") ? std::vector<std::string>{} : std::vector<std::string>{"notes"};
    if (auto c = n.find("read")) {
      for (const InputNode& e : c->elements()) rule.columns.push_back(e.as<std::string>());
    }
    rule.stated = phrases(n, "stated");
    rule.contains = phrases(n, "contains");
    rule.all = phrases(n, "all");
    rule.unless = phrases(n, "unless");
    n.require(!rule.stated.empty() || !rule.contains.empty() || !rule.all.empty() || n.has("number_after"),
              "rule \"" + rule.name + "\" looks for nothing (stated, contains, all or number_after)");
    rule.number_after = lowered(n.get_or<std::string>("number_after", ""));
    const InputNode set = n.at("set");
    set.require(set.is_map(), "must be a mapping of scenario keys (parallelism: ..., training: ...)");
    collect_keys(set, "", rule.keys);
    rule.settings = set.yaml_text();
    n.at("set").require(has(rule.settings, "$number") == !rule.number_after.empty(),
                        "$number appears in set exactly when number_after is given");
    // Checked now, at the file's lines: the settings read over defaults (with 1 for a number).
    ParallelPlan plan;
    TrainingConfig training;
    if (rule.number_after.empty()) {
      read_settings(set, plan, training);
    } else {
      read_settings(InputNode::parse(fill(rule.settings, "1"), path + " (rule " + rule.name + ")"), plan, training);
    }
    n.finish();
    r.rules_.push_back(std::move(rule));
  }
  root.finish();
  return r;
}

const ReadingRules& ReadingRules::shipped() {
  static const ReadingRules r = load(data_path("data/validation/reading_rules.yaml"));
  return r;
}

RowOverlay ReadingRules::read(const std::function<std::string(const std::string&)>& cell, bool moe) const {
  RowOverlay o;
  for (const ReadingRule& rule : rules_) {
    if (rule.moe_only && !moe) continue;
    if (!std::all_of(rule.where.begin(), rule.where.end(),
                     [&](const auto& w) { return has(lowered(cell(w.first)), w.second); })) {
      continue;
    }
    std::string text;
    for (const std::string& c : rule.columns) text += lowered(cell(c)) + " ";
    const auto any_has = [&](const std::vector<std::string>& ps) {
      return std::any_of(ps.begin(), ps.end(), [&](const std::string& p) { return has(text, p); });
    };
    if (any_has(rule.unless)) continue;
    std::string number;
    if (!rule.number_after.empty()) {
      const std::size_t at = text.find(rule.number_after);
      if (at == std::string::npos) continue;
      const std::size_t from = at + rule.number_after.size();
      std::size_t to = from;
      while (to < text.size() && (std::isdigit(static_cast<unsigned char>(text[to])) || text[to] == '.')) ++to;
      if (to == from) continue;
      number = text.substr(from, to - from);
    } else {
      const bool stated = std::any_of(rule.stated.begin(), rule.stated.end(),
                                      [&](const std::string& p) { return states_on(text, p); });
      const bool every = !rule.all.empty() && std::all_of(rule.all.begin(), rule.all.end(),
                                                          [&](const std::string& p) { return has(text, p); });
      if (!stated && !any_has(rule.contains) && !every) continue;
    }
    o.settings.emplace_back(&rule, number.empty() ? rule.settings : fill(rule.settings, number));
    if (!rule.says.empty() && std::find(o.says.begin(), o.says.end(), rule.says) == o.says.end()) {
      o.says.push_back(rule.says);
    }
  }
  return o;
}

void apply_overlay(const RowOverlay& overlay, const std::string& file, ParallelPlan& plan, TrainingConfig& training) {
  for (const auto& [rule, text] : overlay.settings) {
    read_settings(InputNode::parse(text, file + " (rule " + rule->name + ")"), plan, training);
  }
}

}  // namespace cs
