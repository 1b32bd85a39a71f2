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
  var.constraints.assign(constraints.begin(), constraints.end());
  var.slot.resize(constraints.size());
  var.weight = weight;
  var.bound = bound;
  var.value = 0;
  var.live = true;
  for (std::size_t h = 0; h < constraints.size(); ++h) {
    Constraint& c = constraints_[constraints[h]];
    var.slot[h] = static_cast<std::uint32_t>(c.users.size());
    c.users.push_back({v, static_cast<std::uint32_t>(h)});
    dirty_.push_back(constraints[h]);
  }
  return v;
}

void MaxMinSystem::remove_variable(VariableId v) {
  Variable& var = variables_[v];
  for (std::size_t h = 0; h < var.constraints.size(); ++h) {
    Constraint& c = constraints_[var.constraints[h]];
    const std::uint32_t p = var.slot[h];
    const Use last = c.users.back();
    c.users[p] = last;
    variables_[last.variable].slot[last.hop] = p;
    c.users.pop_back();
    dirty_.push_back(var.constraints[h]);
  }
  var.live = false;
  var.value = 0;
  free_.push_back(v);
}

std::vector<MaxMinSystem::VariableId> MaxMinSystem::variables_on(ConstraintId c) const {
  std::vector<VariableId> out;
  for (const Use& u : constraints_[c].users) out.push_back(u.variable);
  return out;
}

// Depth-first walk from the dirty constraints over "variable uses constraint" edges.
void MaxMinSystem::collect_component() {
  ++epoch_;
  component_constraints_.clear();
  component_variables_.clear();
  stack_.swap(dirty_);
  dirty_.clear();
  while (!stack_.empty()) {
    const ConstraintId c = stack_.back();
    stack_.pop_back();
    Constraint& con = constraints_[c];
    if (con.mark == epoch_) continue;
    con.mark = epoch_;
    component_constraints_.push_back(c);
    for (const Use& u : con.users) {
      Variable& var = variables_[u.variable];
      if (var.mark == epoch_) continue;
      var.mark = epoch_;
      component_variables_.push_back(u.variable);
      for (ConstraintId other : var.constraints) {
        if (constraints_[other].mark != epoch_) stack_.push_back(other);
      }
    }
  }
}

// Fixes `v` at `value` and takes it off every constraint it uses; each of those (but `saturated`, which is
// done) gets its new candidate level left / unfixed weight.
void MaxMinSystem::fix(VariableId v, double value, std::uint32_t saturated) {
  Variable& var = variables_[v];
  var.fixed = epoch_;
  var.value = value;
  for (ConstraintId c : var.constraints) {
    Constraint& con = constraints_[c];
    con.left = std::max(0.0, con.left - value);
    con.weight_left -= var.weight;
    --con.unfixed;
    ++con.version;
    if (con.unfixed > 0 && c != saturated) {
      heap_.push_back({con.left / con.weight_left, c, con.version, false});
      std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
    }
  }
}

std::span<const MaxMinSystem::VariableId> MaxMinSystem::solve() {
  if (dirty_.empty()) {
    component_variables_.clear();
    return {};
  }
  collect_component();
  largest_component_ = std::max(largest_component_, component_variables_.size());
  heap_.clear();
  for (ConstraintId c : component_constraints_) {
    Constraint& con = constraints_[c];
    con.left = con.capacity;
    con.unfixed = static_cast<std::uint32_t>(con.users.size());
    con.weight_left = 0;
    for (const Use& u : con.users) con.weight_left += variables_[u.variable].weight;
    ++con.version;
    if (con.unfixed > 0) heap_.push_back({con.left / con.weight_left, c, con.version, false});
  }
  for (VariableId v : component_variables_) {
    const Variable& var = variables_[v];
    if (var.bound != kUnbounded) heap_.push_back({var.bound / var.weight, v, 0, true});
  }
  std::make_heap(heap_.begin(), heap_.end(), std::greater<>{});
  constexpr std::uint32_t kNoConstraint = std::numeric_limits<std::uint32_t>::max();
  while (!heap_.empty()) {
    const Level l = heap_.front();
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>{});
    heap_.pop_back();
    if (l.bound) {
      if (variables_[l.id].fixed != epoch_) fix(l.id, variables_[l.id].bound, kNoConstraint);
      continue;
    }
    const Constraint& bottleneck = constraints_[l.id];
    if (l.version != bottleneck.version || bottleneck.unfixed == 0) continue;
    // fix() swaps nothing in `users`, so iterating while fixing is safe.
    for (const Use& u : bottleneck.users) {
      const Variable& var = variables_[u.variable];
      if (var.fixed == epoch_) continue;
      fix(u.variable, var.weight * l.level, l.id);
    }
  }
  return component_variables_;
}

}  // namespace cs
