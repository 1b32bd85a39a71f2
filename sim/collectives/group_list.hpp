// The rank groups a collective request runs over, shared rather than copied.
//
// The replay issues the same groups (a stage's data-parallel groups, the pairs of a pipeline hop) thousands of
// times per step; at 16K GPUs one list is ~1,000 small vectors, and building and copying it per request was 14%
// of the run in malloc. A GroupList is a shared, immutable list: copying one copies a pointer. The few writers
// (tests, benchmarks building a request by hand) get copy-on-write: push_back/emplace_back/clear first make the
// list this object's own, so a list another request shares never changes under it.
//
// Not for sharing across threads while one of them writes: each simulation builds its own lists.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace cs {

class GroupList {
 public:
  using Group = std::vector<int>;
  using Groups = std::vector<Group>;

  GroupList() = default;
  GroupList(Groups groups) : list_(std::make_shared<Groups>(std::move(groups))), owned_(true) {}  // NOLINT
  GroupList(std::initializer_list<Group> groups) : GroupList(Groups(groups)) {}
  /// Shares `groups` (built once by the caller, e.g. per stage of a replay) without copying it.
  GroupList(std::shared_ptr<const Groups> groups) : list_(std::move(groups)) {}  // NOLINT

  [[nodiscard]] std::size_t size() const noexcept { return list_ ? list_->size() : 0; }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  [[nodiscard]] const Group& operator[](std::size_t i) const { return (*list_)[i]; }
  [[nodiscard]] const Group& front() const { return list_->front(); }
  [[nodiscard]] const Group& back() const { return list_->back(); }
  [[nodiscard]] Groups::const_iterator begin() const noexcept {
    return list_ ? list_->begin() : Groups::const_iterator{};
  }
  [[nodiscard]] Groups::const_iterator end() const noexcept { return list_ ? list_->end() : Groups::const_iterator{}; }

  void push_back(Group g) { own().push_back(std::move(g)); }
  Group& emplace_back() { return own().emplace_back(); }
  void clear() { own().clear(); }

 private:
  /// The list, made this object's alone first if it is shared or was handed in as const.
  Groups& own() {
    if (!owned_ || list_.use_count() != 1) {
      list_ = std::make_shared<Groups>(list_ ? *list_ : Groups{});
      owned_ = true;
    }
    // Safe: when owned_ is set, list_ points at a (non-const) Groups this class created with make_shared.
    return const_cast<Groups&>(*list_);
  }

  std::shared_ptr<const Groups> list_;
  bool owned_ = false;  ///< list_ was created here (so it is not const), not handed in by a caller
};

}  // namespace cs
