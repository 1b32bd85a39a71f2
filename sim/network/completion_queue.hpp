// The flows' completion times as an indexed binary min-heap: one entry per flow, moved in place when a
// re-solve changes the flow's rate (no stale entries pile up, so the heap never holds more than the active
// flows). Ordered by (time, flow id), so equal times pop in a fixed order. All operations O(log n).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"

namespace cs {

class CompletionQueue {
 public:
  struct Entry {
    Time at;
    std::uint32_t flow;
    bool operator<(const Entry& o) const noexcept { return at != o.at ? at < o.at : flow < o.flow; }
  };

  /// Inserts `flow` due at `at`, or moves it there if it is queued.
  void set(std::uint32_t flow, Time at) {
    if (flow >= position_.size()) position_.resize(flow + 1, kAbsent);
    std::uint32_t i = position_[flow];
    if (i == kAbsent) {
      i = static_cast<std::uint32_t>(heap_.size());
      heap_.push_back({at, flow});
      position_[flow] = i;
      up(i);
      return;
    }
    const Entry old = heap_[i];
    heap_[i].at = at;
    if (heap_[i] < old) up(i);
    else down(i);
  }
  [[nodiscard]] bool empty() const noexcept { return heap_.empty(); }
  [[nodiscard]] const Entry& top() const { return heap_.front(); }
  void pop() { erase_at(0); }
  void erase(std::uint32_t flow) {
    if (flow < position_.size() && position_[flow] != kAbsent) erase_at(position_[flow]);
  }

 private:
  static constexpr std::uint32_t kAbsent = ~std::uint32_t{0};
  void place(std::uint32_t i, const Entry& e) {
    heap_[i] = e;
    position_[e.flow] = i;
  }
  void up(std::uint32_t i) {
    const Entry e = heap_[i];
    while (i > 0) {
      const std::uint32_t parent = (i - 1) / 2;
      if (!(e < heap_[parent])) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, e);
  }
  void down(std::uint32_t i) {
    const Entry e = heap_[i];
    const auto n = static_cast<std::uint32_t>(heap_.size());
    for (;;) {
      std::uint32_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && heap_[child + 1] < heap_[child]) ++child;
      if (!(heap_[child] < e)) break;
      place(i, heap_[child]);
      i = child;
    }
    place(i, e);
  }
  void erase_at(std::uint32_t i) {
    position_[heap_[i].flow] = kAbsent;
    const Entry last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    const Entry old = heap_[i];
    place(i, last);
    if (last < old) up(i);
    else down(i);
  }

  std::vector<Entry> heap_;
  std::vector<std::uint32_t> position_;  // flow -> index in heap_, or kAbsent
};

}  // namespace cs
