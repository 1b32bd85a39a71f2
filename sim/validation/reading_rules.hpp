// How `clustersim validate` reads what a row states only in prose (its notes, its model name): data, not code.
// data/validation/reading_rules.yaml lists phrases and the scenario settings they state ("ETP=1" ->
// parallelism.expert_tp: 1; "DeepEP" -> training.moe_dispatcher: flex). A row's matching rules make its overlay,
// which is read over the scenario its columns give through the parameter tables, like any scenario's keys, after
// the framework's defaults: what a row states wins. Adding a phrase is an edit of that file.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/workload/parallel_plan.hpp"

namespace cs {

/// A validation row's cell by column name (empty for a column the row lacks).
using RowCells = std::function<std::string(const std::string&)>;

/// Whether lower-case `s` states `what` as on: some occurrence not negated before it ("no ", "not ", "without ",
/// "disabled ") nor after it ("=false", " false", ": false", " off", "=0", " disabled", " none", "=none").
[[nodiscard]] bool states_on(const std::string& s, const std::string& what);

/// One rule: where it reads, what it looks for, and the settings it then states.
struct ReadingRule {
  std::string name;
  std::string says;                  ///< the assumption a match adds to the row's list; empty: none
  bool moe_only = false;             ///< applies to MoE models only
  /// Read by the layout logic as the row's statement (RowOverlay::stated), not applied over the finished scenario:
  /// facts the layout depends on (DualPipe needs an even pipeline; ASYM_PP an uneven split).
  bool layout = false;
  std::vector<std::pair<std::string, std::string>> where;  ///< and only where each column holds its phrase
  std::vector<std::string> columns;  ///< the cells read (lower-cased, joined by spaces); the file's `read:`
  std::vector<std::string> stated;   ///< any of these stated on (states_on)
  std::vector<std::string> contains; ///< or any of these present
  std::vector<std::string> all;      ///< or every one of these present
  std::vector<std::string> and_any;  ///< and (when given) any of these present too
  std::vector<std::string> unless;   ///< and none of these present
  /// A list rule: after any of these phrases, the identifiers up to the next "(", ")", ";" or "." each turn on the
  /// boolean key of that name in section `list_into` ("cuda graphs of attn, moe_router" ->
  /// training.cuda_graph_modules.attn and .moe_router); words that name no key are ignored.
  std::vector<std::string> list_after;
  std::string list_into;
  std::set<std::string> list_words;  ///< the boolean keys of `list_into`
  std::string number_after;          ///< a number right after this phrase fills `$number` in the settings
  /// YAML: {parallelism: {...}, training: {...}} and how the row's figure was counted, {measured:
  /// {counts_recompute: true}} (a TFLOP/s figure of hardware FLOPs)
  std::string settings;
  std::set<std::string> keys;        ///< the dotted keys `settings` writes
};

/// One matching rule's settings, $number or the list filled in.
struct AppliedRule {
  const ReadingRule* rule = nullptr;
  std::string settings;        ///< YAML
  std::set<std::string> keys;  ///< the dotted keys it writes
};

/// What a row's prose states: the settings of its matching rules, in the file's order.
struct RowOverlay {
  std::vector<AppliedRule> settings;
  std::vector<std::string> says;
  /// Whether the row states `dotted_key` ("training.overlap.tp_comm", "measured.counts_recompute").
  [[nodiscard]] bool sets(const std::string& dotted_key) const;
  /// The value text the row states for `dotted_key` (the last matching rule's), if any.
  [[nodiscard]] std::optional<std::string> stated(const std::string& dotted_key) const;
};

class ReadingRules {
 public:
  /// Reads and checks a rules file: every rule's settings are read once through the parameter tables, so a
  /// misspelt key or a bad value is reported at its line before any row is read.
  [[nodiscard]] static ReadingRules load(const std::string& path);
  /// data/validation/reading_rules.yaml, read once.
  [[nodiscard]] static const ReadingRules& shipped();

  /// Whether the row's own cells (recipe_aspects' `read` columns) speak of a release recipe's `aspect`
  /// ("a2a_overlap", "dispatcher", "cuda_graphs"), so that the recipe does not speak for the row there.
  [[nodiscard]] bool speaks_of(const std::string& aspect, const RowCells& cell) const;

  /// The overlay of the row whose cells `cell(column)` returns.
  [[nodiscard]] RowOverlay read(const RowCells& cell, bool moe) const;
  [[nodiscard]] const std::vector<ReadingRule>& rules() const noexcept { return rules_; }
  [[nodiscard]] const std::string& file() const noexcept { return file_; }

 private:
  std::vector<ReadingRule> rules_;
  std::map<std::string, std::vector<std::string>> recipe_aspects_;
  std::vector<std::string> recipe_aspect_columns_;  ///< the row's cells recipe_aspects are looked for in
  std::string file_;
};

/// Reads `overlay`'s settings over `plan` and `training` (parallelism.* and training.* keys), in order; the
/// layout rules' settings are the layout logic's to read (RowOverlay::stated) and are skipped.
void apply_overlay(const RowOverlay& overlay, const std::string& file, ParallelPlan& plan, TrainingConfig& training);

}  // namespace cs
