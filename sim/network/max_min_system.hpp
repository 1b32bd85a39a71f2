// A linear max-min sharing system, as SimGrid's lmm solver holds it: variables (flows) with a weight and an
// upper bound on their value, constraints (links) with a capacity, and each variable using some constraints.
// The solution is the weighted max-min fair allocation: every variable gets weight x level, where no variable's
// level can rise without lowering the level of a variable that already has a lower or equal one; a variable
// stops at its bound, and a constraint is never loaded beyond its capacity.
//
// Solved by progressive filling (Bertsekas & Gallager, Data Networks, 6.5.2): raise one level for every
// unfixed variable; the first constraint to saturate (left / unfixed weight is smallest) or variable to hit
// its bound (bound / weight is smallest) fixes its variables at that level; repeat. Only the connected
// component of constraints and variables touched since the last solve is re-solved (a change elsewhere cannot
// move these values). A constraint whose users could not fill it even at their caps (each variable's cap is its
// bound or the smallest capacity it uses) can never bind: it couples nothing, so the walk does not cross it and
// filling ignores it, which keeps components to the links that are really shared. Complexity per solve of a component with V variables, C constraints and H constraints
// per variable: O(V*H + C log C): an indexed heap holds one level per constraint, and each round of fixing
// moves every constraint it touched once.
//
// The values are plain numbers in whatever unit the capacities use (FlowNetwork uses bytes per second); the
// system knows nothing of time. Variable ids are reused after removal.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "sim/network/level_heap.hpp"

namespace cs {

class MaxMinSystem {
 public:
  using VariableId = std::uint32_t;
  using ConstraintId = std::uint32_t;
  static constexpr double kUnbounded = std::numeric_limits<double>::infinity();

  /// A constraint of `capacity` (>= 0); ids are 0, 1, 2, ... in order of creation.
  ConstraintId add_constraint(double capacity);
  /// A variable of `weight` (> 0) and upper bound `bound` (> 0, or kUnbounded) over `constraints` (at least
  /// one, each once). Marks those constraints for the next solve.
  VariableId add_variable(std::span<const ConstraintId> constraints, double weight = 1.0, double bound = kUnbounded);
  /// Removes `v` from its constraints (marked for the next solve); its id may be reused.
  void remove_variable(VariableId v);

  /// Re-solves every component touched since the last solve and returns the variables whose value it set
  /// (valid until the next call that changes the system). Untouched variables keep their values.
  std::span<const VariableId> solve();

  [[nodiscard]] double value(VariableId v) const { return values_[v]; }
  [[nodiscard]] double capacity(ConstraintId c) const { return constraints_[c].capacity; }
  [[nodiscard]] std::size_t constraint_count() const noexcept { return constraints_.size(); }
  /// Variables currently using `c`, in no particular order.
  [[nodiscard]] std::vector<VariableId> variables_on(ConstraintId c) const;
  [[nodiscard]] std::size_t load(ConstraintId c) const { return constraints_[c].user_count; }
  [[nodiscard]] bool has_pending_changes() const noexcept { return !dirty_.empty(); }
  /// Most variables re-solved by one call to solve().
  [[nodiscard]] std::size_t largest_component() const noexcept { return largest_component_; }

 private:
  // Memory layout. Starting or ending a flow touches each of its ~10 constraints, so every record is small and
  // no record owns a heap block: a variable's hops are one block of `hops_`, a constraint's users one block of
  // `uses_` (both arenas of plain structs, addressed by index; freed blocks are kept on free lists by size and
  // reused, so steady-state operation does not allocate), and a constraint and a variable are 32 bytes each.
  // Most constraints carry one flow at a time, so a constraint with a single user keeps it in its own record
  // and takes a block only when a second one comes (and gives it back when it empties). What
  // the component walk and the fixing ask of every constraint they meet (reached yet? can it bind? is it being
  // filled?) is kept apart in dense arrays, so a record is read only where it is crossed; what filling needs of
  // a crossed constraint is scratch (fill_) in the order of crossing.
  struct Use {
    VariableId variable;
    std::uint32_t hop;  // index in hops_ of the Hop that points back here
  };
  struct Hop {
    ConstraintId constraint;
    std::uint32_t slot;  // index of the variable in the constraint's users
  };
  struct alignas(32) Variable {
    double weight = 1.0;
    double cap = kUnbounded;   // the most it can ever get: min(bound, the smallest capacity it uses)
    std::uint32_t hops = 0;    // its hops are hops_[hops, hops + hop_count), in the order it was given
    std::uint32_t hop_count = 0;
    std::uint32_t mark = 0;    // epoch of the last component walk that reached it
    std::uint32_t fixed = 0;   // epoch in which progressive filling fixed it
  };
  struct alignas(32) Constraint {
    double capacity = 0;
    double demand = 0;             // sum of its users' caps: at or below capacity, it can never bind
    std::uint32_t user_count = 0;  // a user leaves by swapping the last one into its slot
    std::uint32_t room_class = 0;  // 0: room for one user, `one`; k > 0: room for 2^k users in uses_ from `begin`
    union {
      Use one;
      std::uint32_t begin;
    };
    Constraint() : one{} {}
  };
  static constexpr std::uint32_t kNotFilled = ~std::uint32_t{0};
  // Where the component walk left a constraint.
  struct Walk {
    std::uint32_t epoch = 0;         // of the last walk that reached it
    std::uint32_t fill = kNotFilled; // in that walk, its index in component_constraints_ and fill_ if crossed
  };
  // A constraint crossed by this solve's walk, as progressive filling changes it.
  struct Fill {
    double left;                // capacity not yet given out
    double weight_left;         // weight of the users not yet fixed
    std::uint32_t unfixed;      // users not yet fixed
    std::uint32_t touched;      // stamp of the last round of fixing that changed it
  };
  // A variable reaching its cap at `level` (= cap / weight); every variable has one (a capacity is finite).
  struct BoundLevel {
    double level;
    VariableId variable;
    bool operator>(const BoundLevel& o) const noexcept {
      return level != o.level ? level > o.level : variable > o.variable;
    }
  };

  [[nodiscard]] static bool can_bind(const Constraint& c) noexcept { return c.demand > c.capacity * (1 + 1e-12); }
  [[nodiscard]] const Use* user_slots(const Constraint& c) const noexcept {
    return c.room_class == 0 ? &c.one : uses_.data() + c.begin;
  }
  [[nodiscard]] Use* user_slots(Constraint& c) noexcept { return c.room_class == 0 ? &c.one : uses_.data() + c.begin; }
  [[nodiscard]] std::span<const Use> users(const Constraint& c) const noexcept { return {user_slots(c), c.user_count}; }
  [[nodiscard]] std::span<const Hop> hops(const Variable& v) const noexcept {
    return {hops_.data() + v.hops, v.hop_count};
  }
  void grow_users(Constraint& c);  // moves c's users to a block of twice the room (the first block: 4)
  void collect_component();
  void fix_bottleneck(ConstraintId c, double level);
  void fix(VariableId v, double value);
  void update_touched();

  std::vector<Variable> variables_;
  std::vector<double> values_;  // by variable
  std::vector<VariableId> free_;
  std::vector<Constraint> constraints_;
  std::vector<Walk> walk_;              // by constraint
  std::vector<std::uint8_t> bindable_;  // by constraint: can_bind(), kept up to date with its demand
  std::vector<Hop> hops_;
  std::vector<std::vector<std::uint32_t>> free_hops_;  // by hop count: starts of free blocks in hops_
  std::vector<Use> uses_;
  std::vector<std::vector<std::uint32_t>> free_uses_;  // by log2(capacity): starts of free blocks in uses_
  std::vector<ConstraintId> dirty_;
  std::uint32_t epoch_ = 0;
  std::uint32_t stamp_ = 0;  // marks the constraints touched by one round of fixing
  std::size_t largest_component_ = 0;
  // Scratch space reused by every solve.
  std::vector<ConstraintId> stack_, component_constraints_;
  std::vector<Fill> fill_;                 // by index in component_constraints_
  std::vector<std::uint32_t> touched_;     // indices in fill_ changed by this round of fixing
  std::vector<VariableId> component_variables_;
  LevelHeap levels_;                // constraints by level = left / unfixed weight, one entry each
  std::vector<BoundLevel> bounds_;  // sorted by (level, variable)
};

}  // namespace cs
