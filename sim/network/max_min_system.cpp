#include "sim/network/max_min_system.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace cs {

MaxMinSystem::ConstraintId MaxMinSystem::add_constraint(double capacity) {
  if (!(capacity >= 0)) throw std::invalid_argument("MaxMinSystem: a capacity must not be negative");
  constraints_.emplace_back();
  constraints_.back().capacity = capacity;
  return static_cast<ConstraintId>(constraints_.size() - 1);
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
  }
  Variable& var = variables_[v];
  var.hops.resize(constraints.size());
  var.weight = weight;
  var.bound = bound;
  var.value = 0;
  var.cap = bound;
  for (ConstraintId c : constraints) var.cap = std::min(var.cap, constraints_[c].capacity);
  for (std::size_t h = 0; h < constraints.size(); ++h) {
    Constraint& c = constraints_[constraints[h]];
    var.hops[h] = {constraints[h], static_cast<std::uint32_t>(c.users.size())};
    c.users.push_back({v, static_cast<std::uint32_t>(h)});
    c.demand += var.cap;
    dirty_.push_back(constraints[h]);
  }
  return v;
}

void MaxMinSystem::remove_variable(VariableId v) {
  Variable& var = variables_[v];
  for (const Hop& hop : var.hops) {
    Constraint& c = constraints_[hop.constraint];
    const Use last = c.users.back();
    c.users[hop.slot] = last;
    variables_[last.variable].hops[last.hop].slot = hop.slot;
    c.users.pop_back();
    c.demand = c.users.empty() ? 0.0 : c.demand - var.cap;
    dirty_.push_back(hop.constraint);
  }
  var.hops.clear();
  var.value = 0;
  free_.push_back(v);
}

std::vector<MaxMinSystem::VariableId> MaxMinSystem::variables_on(ConstraintId c) const {
  std::vector<VariableId> out;
  for (const Use& u : constraints_[c].users) out.push_back(u.variable);
  return out;
}

// Depth-first walk from the dirty constraints over "variable uses constraint" edges. The dirty constraints'
// users are always re-solved (a removal may have freed them); beyond those, the walk crosses only constraints
// that can bind. Each binding constraint reached starts with its whole capacity left and its users unfixed.
void MaxMinSystem::collect_component() {
  ++epoch_;
  component_constraints_.clear();
  component_variables_.clear();
  stack_.clear();
  // A constraint is marked when first reached; one that can bind is queued once, one that cannot is not crossed.
  auto reach = [this](ConstraintId c) {
    Constraint& con = constraints_[c];
    if (con.mark == epoch_) return;
    con.mark = epoch_;
    if (can_bind(con)) stack_.push_back(c);
  };
  auto take = [this, &reach](VariableId v) {
    Variable& var = variables_[v];
    if (var.mark == epoch_) return;
    var.mark = epoch_;
    component_variables_.push_back(v);
    for (const Hop& hop : var.hops) reach(hop.constraint);
  };
  for (ConstraintId c : dirty_) {  // seeds: their users always, whether they can bind or not
    Constraint& con = constraints_[c];
    if (con.mark == epoch_) continue;
    if (can_bind(con)) {
      reach(c);
      continue;
    }
    con.mark = epoch_;
    for (const Use& u : con.users) take(u.variable);
  }
  dirty_.clear();
  while (!stack_.empty()) {
    const ConstraintId c = stack_.back();
    stack_.pop_back();
    Constraint& con = constraints_[c];
    con.active = epoch_;
    component_constraints_.push_back(c);
    con.left = con.capacity;
    con.unfixed = static_cast<std::uint32_t>(con.users.size());
    con.weight_left = 0;
    for (const Use& u : con.users) {
      con.weight_left += variables_[u.variable].weight;
      take(u.variable);
    }
  }
}

// Fixes `v` at `value` and takes it off every constraint it uses, noting each constraint once per round.
void MaxMinSystem::fix(VariableId v, double value) {
  Variable& var = variables_[v];
  var.fixed = epoch_;
  var.value = value;
  for (const Hop& hop : var.hops) {
    Constraint& con = constraints_[hop.constraint];
    if (con.active != epoch_) continue;
    con.left = std::max(0.0, con.left - value);
    con.weight_left -= var.weight;
    --con.unfixed;
    if (touched_mark_[hop.constraint] != stamp_) {
      touched_mark_[hop.constraint] = stamp_;
      touched_.push_back(hop.constraint);
    }
  }
}

// After a round of fixing: every touched constraint that still has unfixed users moves to its new level
// left / unfixed weight (never lower than the level just fixed); the others leave the heap.
void MaxMinSystem::update_touched() {
  for (ConstraintId c : touched_) {
    const Constraint& con = constraints_[c];
    if (con.unfixed > 0) levels_.set(c, con.left / con.weight_left);
    else levels_.erase(c);
  }
  touched_.clear();
  ++stamp_;
}

void MaxMinSystem::fix_bottleneck(ConstraintId c, double level) {
  for (const Use& u : constraints_[c].users) {
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
  if (touched_mark_.size() < constraints_.size()) touched_mark_.resize(constraints_.size(), 0);
  ++stamp_;
  for (ConstraintId c : component_constraints_) {
    const Constraint& con = constraints_[c];
    if (con.unfixed > 0) levels_.set(c, con.left / con.weight_left);
  }
  bounds_.clear();
  for (VariableId v : component_variables_) {
    const Variable& var = variables_[v];
    if (var.cap != kUnbounded) bounds_.push_back({var.cap / var.weight, v});
  }
  std::make_heap(bounds_.begin(), bounds_.end(), std::greater<>{});
  // Rounds in increasing level; at equal levels a constraint goes before a bound, lower ids first.
  while (!levels_.empty() || !bounds_.empty()) {
    if (!bounds_.empty() && (levels_.empty() || bounds_.front().level < levels_.top_level())) {
      const BoundLevel b = bounds_.front();
      std::pop_heap(bounds_.begin(), bounds_.end(), std::greater<>{});
      bounds_.pop_back();
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
