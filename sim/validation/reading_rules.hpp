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

/// The behaviours of a framework stack that validation implements and a `phase: stack` rule may name (`traits:`):
///   megatron_layouts       a layout validation chooses keeps Megatron's sharding (the distributed optimizer, ZeRO-1,
///                          and no more) and the overlaps the row has;
///   distributed_optimizer  a row that leaves zero_fsdp blank shards optimizer state (--use-distributed-optimizer);
///   nvidia_recipes         NeMo's and Megatron-Bridge's performance recipes: interleaved pipelines by default, fp8 or
///                          fp4 parameter gathers, bf16 gradient reduction, TP comm overlap on dense models, "DDP" as
///                          the data-parallel wrapper;
///   release_recipes        the row's release recipe is looked up in data/recipes (the container the rule's cells name).
inline constexpr const char* kStackTraits[] = {"megatron_layouts", "distributed_optimizer", "nvidia_recipes",
                                               "release_recipes"};

/// One rule: where it reads, what it looks for, and the settings it then states.
struct ReadingRule {
  std::string name;
  std::string says;                  ///< the assumption a match adds to the row's list; empty: none
  bool moe_only = false;             ///< applies to MoE models only
  /// Read by the layout logic as the row's statement (RowOverlay::stated), not applied over the finished scenario:
  /// facts the layout depends on (DualPipe needs an even pipeline; ASYM_PP an uneven split).
  bool layout = false;
  /// The framework stack a row ran on (`phase: stack`): its settings are defaults, applied before the row's own
  /// rules; its traits name behaviours of the stack (kStackTraits). Read by ReadingRules::read_stack.
  bool stack = false;
  std::vector<std::string> traits;
  /// and only where each column holds one of its phrases
  std::vector<std::pair<std::string, std::vector<std::string>>> where;
  /// or the first container release (YY.MM) the cells name is at most / at least this one
  std::string release_through, release_from;
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

/// The framework stack a row ran on: what its `phase: stack` rules found in its cells.
struct RowStack {
  std::vector<AppliedRule> settings;  ///< defaults of the stack, in the file's order
  std::map<std::string, std::string> traits;  ///< trait -> the cells its rule read, as written (not lower-cased)
  [[nodiscard]] bool has(const std::string& trait) const { return traits.contains(trait); }
  /// The cells the rule that found `trait` read, joined by spaces ("" when the row lacks it).
  [[nodiscard]] std::string text(const std::string& trait) const;
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

  /// The overlay of the row whose cells `cell(column)` returns (its scenario and layout rules).
  [[nodiscard]] RowOverlay read(const RowCells& cell, bool moe) const;
  /// The framework stack of the row whose cells `cell(column)` returns: the file's `defaults`, then the settings
  /// and traits of its stack rules.
  [[nodiscard]] RowStack read_stack(const RowCells& cell, bool moe) const;
  [[nodiscard]] const std::vector<ReadingRule>& rules() const noexcept { return rules_; }
  [[nodiscard]] const std::string& file() const noexcept { return file_; }

 private:
  std::vector<ReadingRule> rules_;
  ReadingRule defaults_;  ///< the file's `defaults`: the settings every row's stack starts from
  std::map<std::string, std::vector<std::string>> recipe_aspects_;
  std::vector<std::string> recipe_aspect_columns_;  ///< the row's cells recipe_aspects are looked for in
  std::string file_;
};

/// Reads `overlay`'s settings over `plan` and `training` (parallelism.* and training.* keys), in order; the
/// layout rules' settings are the layout logic's to read (RowOverlay::stated) and are skipped.
void apply_overlay(const RowOverlay& overlay, const std::string& file, ParallelPlan& plan, TrainingConfig& training);

/// Reads the stack's defaults over `plan` and `training`, in order, and returns what those the row's own overlay
/// does not replace say (a stack rule's `says`, where the row states none of the keys it sets).
std::vector<std::string> apply_stack(const RowStack& stack, const RowOverlay& overlay, const std::string& file,
                                     ParallelPlan& plan, TrainingConfig& training);

}  // namespace cs
