#include "sim/network/max_min_system.hpp"

#include <algorithm>
#include <bit>
#include <functional>
#include <stdexcept>

namespace cs {

MaxMinSystem::ConstraintId MaxMinSystem::add_constraint(double capacity) {
  if (!(capacity >= 0)) throw std::invalid_argument("MaxMinSystem: a capacity must not be negative");
  constraints_.emplace_back();
  constraints_.back().capacity = capacity;
  walk_.emplace_back();
  bindable_.push_back(0);
  return static_cast<ConstraintId>(constraints_.size() - 1);
}

namespace {

// Blocks of users hold 2^k entries, k >= kSmallestUsersClass.
constexpr std::uint32_t kSmallestUsersClass = 2;

// A block of `count` entries from `arena`: the last one freed with that `size_class`, else new ones at the end.
template <class T>
std::uint32_t take_block(std::vector<T>& arena, std::vector<std::vector<std::uint32_t>>& free_blocks,
                         std::uint32_t size_class, std::uint32_t count) {
  if (free_blocks.size() <= size_class) free_blocks.resize(size_class + 1);
  std::vector<std::uint32_t>& list = free_blocks[size_class];
  if (!list.empty()) {
    const std::uint32_t begin = list.back();
    list.pop_back();
    return begin;
  }
  const auto begin = static_cast<std::uint32_t>(arena.size());
  arena.resize(arena.size() + count);
  return begin;
}

// Starts loading the cache line of `p` for writing. Adding or removing a variable touches ~10 records scattered
// over megabytes; asking for all of them before using any lets their cache misses overlap instead of queueing.
inline void prefetch(const void* p) { __builtin_prefetch(p, 1); }

}  // namespace

void MaxMinSystem::grow_users(Constraint& c) {
  const std::uint32_t size_class = c.room_class == 0 ? kSmallestUsersClass : c.room_class + 1;
  const std::uint32_t begin = take_block(uses_, free_uses_, size_class, std::uint32_t{1} << size_class);
  std::copy_n(user_slots(c), c.user_count, uses_.begin() + begin);
  if (c.room_class > 0) free_uses_[c.room_class].push_back(c.begin);
  c.begin = begin;
  c.room_class = size_class;
}

MaxMinSystem::VariableId MaxMinSystem::add_variable(std::span<const ConstraintId> constraints, double weight,
                                                    double bound) {
  if (!(weight > 0) || !(bound > 0)) throw std::invalid_argument("MaxMinSystem: weight and bound must be positive");
  if (constraints.empty()) throw std::invalid_argument("MaxMinSystem: a variable must use a constraint");
  VariableId v;
  if (!free_.empty()) {
    v = free_.back();
    free_.pop_back();
  } else {
    v = static_cast<VariableId>(variables_.size());
    variables_.emplace_back();
    values_.push_back(0);
  }
  const auto count = static_cast<std::uint32_t>(constraints.size());
  const std::uint32_t first = take_block(hops_, free_hops_, count, count);
  Variable& var = variables_[v];
  var.hops = first;
  var.hop_count = count;
  var.weight = weight;
  values_[v] = 0;
  var.cap = bound;
  for (ConstraintId c : constraints) var.cap = std::min(var.cap, constraints_[c].capacity);
  for (ConstraintId c : constraints) {
    if (constraints_[c].room_class > 0) prefetch(uses_.data() + constraints_[c].begin + constraints_[c].user_count);
  }
  for (std::uint32_t h = 0; h < count; ++h) {
    Constraint& c = constraints_[constraints[h]];
    hops_[first + h] = {constraints[h], c.user_count};
    if (c.user_count == std::uint32_t{1} << c.room_class) grow_users(c);
    user_slots(c)[c.user_count++] = {v, first + h};
    c.demand += var.cap;
    bindable_[constraints[h]] = can_bind(c);
    dirty_.push_back(constraints[h]);
  }
  return v;
}

void MaxMinSystem::remove_variable(VariableId v) {
  Variable& var = variables_[v];
  const std::uint32_t end = var.hops + var.hop_count;
  for (std::uint32_t h = var.hops; h < end; ++h) prefetch(&constraints_[hops_[h].constraint]);
  for (std::uint32_t h = var.hops; h < end; ++h) {
    const Constraint& c = constraints_[hops_[h].constraint];
    if (c.room_class == 0) continue;
    prefetch(uses_.data() + c.begin + c.user_count - 1);
    prefetch(uses_.data() + c.begin + hops_[h].slot);
  }
  for (std::uint32_t h = var.hops; h < end; ++h) {
    const Hop hop = hops_[h];
    Constraint& c = constraints_[hop.constraint];
    Use* const slots = user_slots(c);
    const Use last = slots[c.user_count - 1];
    slots[hop.slot] = last;
    hops_[last.hop].slot = hop.slot;
    if (--c.user_count == 0) {
      c.demand = 0.0;
      if (c.room_class > 0) {
        free_uses_[c.room_class].push_back(c.begin);
        c.room_class = 0;
        c.one = {};
      }
    } else {
      c.demand -= var.cap;
    }
    bindable_[hop.constraint] = can_bind(c);
    dirty_.push_back(hop.constraint);
  }
  free_hops_[var.hop_count].push_back(var.hops);
  var.hop_count = 0;
  values_[v] = 0;
  free_.push_back(v);
}

std::vector<MaxMinSystem::VariableId> MaxMinSystem::variables_on(ConstraintId c) const {
  std::vector<VariableId> out;
  for (const Use& u : users(constraints_[c])) out.push_back(u.variable);
  return out;
}

// Depth-first walk from the dirty constraints over "variable uses constraint" edges. The dirty constraints'
// users are always re-solved (a removal may have freed them); beyond those, the walk crosses only constraints
// that can bind. Each binding constraint reached starts with its whole capacity left and its users unfixed.
void MaxMinSystem::collect_component() {
  ++epoch_;
  component_constraints_.clear();
  fill_.clear();
  component_variables_.clear();
  stack_.clear();
  // A constraint is marked when first reached; one that can bind is queued once, one that cannot is not crossed.
  auto reach = [this](ConstraintId c) {
    Walk& w = walk_[c];
    if (w.epoch == epoch_) return;
    w = {epoch_, kNotFilled};
    if (bindable_[c] != 0) {
      prefetch(&constraints_[c]);
      stack_.push_back(c);
    }
  };
  auto take = [this, &reach](VariableId v) {
    Variable& var = variables_[v];
    if (var.mark == epoch_) return;
    var.mark = epoch_;
    component_variables_.push_back(v);
    for (const Hop& hop : hops(var)) prefetch(&walk_[hop.constraint]);
    for (const Hop& hop : hops(var)) reach(hop.constraint);
  };
  // Seeds: their users always, whether they can bind or not. The dirty list is known in advance, so the entries
  // of the seeds a few places ahead are fetched while one is handled.
  constexpr std::size_t kAhead = 8;
  for (std::size_t i = 0; i < dirty_.size(); ++i) {
    if (i + kAhead < dirty_.size()) {
      prefetch(&walk_[dirty_[i + kAhead]]);
      prefetch(&constraints_[dirty_[i + kAhead]]);
    }
    const ConstraintId c = dirty_[i];
    Walk& w = walk_[c];
    if (w.epoch == epoch_) continue;
    if (bindable_[c] != 0) {
      reach(c);
      continue;
    }
    w = {epoch_, kNotFilled};
    for (const Use& u : users(constraints_[c])) take(u.variable);
  }
  dirty_.clear();
  while (!stack_.empty()) {
    const ConstraintId c = stack_.back();
    stack_.pop_back();
    const Constraint& con = constraints_[c];
    walk_[c].fill = static_cast<std::uint32_t>(component_constraints_.size());
    component_constraints_.push_back(c);
    for (const Use& u : users(con)) prefetch(&variables_[u.variable]);
    double weight = 0;
    for (const Use& u : users(con)) {
      weight += variables_[u.variable].weight;
      take(u.variable);
    }
    fill_.push_back({con.capacity, weight, con.user_count, 0});
  }
}

// Fixes `v` at `value` and takes it off every constraint it uses, noting each constraint once per round.
void MaxMinSystem::fix(VariableId v, double value) {
  Variable& var = variables_[v];
  var.fixed = epoch_;
  values_[v] = value;
  for (const Hop& hop : hops(var)) {
    const Walk w = walk_[hop.constraint];
    if (w.epoch != epoch_ || w.fill == kNotFilled) continue;
    Fill& f = fill_[w.fill];
    f.left = std::max(0.0, f.left - value);
    f.weight_left -= var.weight;
    --f.unfixed;
    if (f.touched != stamp_) {
      f.touched = stamp_;
      touched_.push_back(w.fill);
    }
  }
}

// After a round of fixing: every touched constraint that still has unfixed users moves to its new level
// left / unfixed weight (never lower than the level just fixed); the others leave the heap.
void MaxMinSystem::update_touched() {
  for (std::uint32_t i : touched_) {
    const Fill& f = fill_[i];
    if (f.unfixed > 0) levels_.set(component_constraints_[i], f.left / f.weight_left);
    else levels_.erase(component_constraints_[i]);
  }
  touched_.clear();
  ++stamp_;
}

void MaxMinSystem::fix_bottleneck(ConstraintId c, double level) {
  for (const Use& u : users(constraints_[c])) {
    const Variable& var = variables_[u.variable];
    if (var.fixed != epoch_) fix(u.variable, var.weight * level);
  }
}

std::span<const MaxMinSystem::VariableId> MaxMinSystem::solve() {
  if (dirty_.empty()) {
    component_variables_.clear();
    return {};
  }
  collect_component();
  largest_component_ = std::max(largest_component_, component_variables_.size());
  levels_.reserve_ids(constraints_.size());
  ++stamp_;
  for (std::size_t i = 0; i < fill_.size(); ++i) {
    if (fill_[i].unfixed > 0) levels_.set(component_constraints_[i], fill_[i].left / fill_[i].weight_left);
  }
  // Every variable reaches its cap at some level; they are taken in increasing (level, id) order.
  bounds_.clear();
  for (VariableId v : component_variables_) {
    const Variable& var = variables_[v];
    if (var.cap != kUnbounded) bounds_.push_back({var.cap / var.weight, v});
  }
  std::sort(bounds_.begin(), bounds_.end(), [](const BoundLevel& a, const BoundLevel& b) { return b > a; });
  std::size_t next_bound = 0;
  // Rounds in increasing level; at equal levels a constraint goes before a bound, lower ids first.
  while (!levels_.empty() || next_bound < bounds_.size()) {
    if (next_bound < bounds_.size() && (levels_.empty() || bounds_[next_bound].level < levels_.top_level())) {
      const BoundLevel b = bounds_[next_bound++];
      if (variables_[b.variable].fixed == epoch_) continue;
      fix(b.variable, variables_[b.variable].cap);
    } else {
      const ConstraintId c = levels_.top_id();
      const double level = levels_.top_level();
      levels_.erase(c);
      fix_bottleneck(c, level);
    }
    update_touched();
  }
  return component_variables_;
}

}  // namespace cs
