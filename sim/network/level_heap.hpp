// Constraints keyed by their fill level, as an indexed binary min-heap ordered by (level, id): one entry per
// constraint, moved in place when its level changes, so a solve never pops stale entries. O(log n) per update.
#pragma once

#include <cstdint>
#include <vector>

namespace cs {

class LevelHeap {
 public:
  /// Makes room for ids below `n` (all absent).
  void reserve_ids(std::size_t n) {
    if (position_.size() < n) position_.resize(n, kAbsent);
  }
  void clear() {
    for (const Entry& e : heap_) position_[e.id] = kAbsent;
    heap_.clear();
  }
  /// Inserts `id` at `level`, or moves it there.
  void set(std::uint32_t id, double level) {
    std::uint32_t i = position_[id];
    if (i == kAbsent) {
      i = static_cast<std::uint32_t>(heap_.size());
      heap_.push_back({level, id});
      position_[id] = i;
      up(i);
      return;
    }
    const Entry old = heap_[i];
    heap_[i].level = level;
    if (heap_[i] < old) up(i);
    else down(i);
  }
  void erase(std::uint32_t id) {
    if (position_[id] != kAbsent) erase_at(position_[id]);
  }
  [[nodiscard]] bool empty() const noexcept { return heap_.empty(); }
  [[nodiscard]] double top_level() const { return heap_.front().level; }
  [[nodiscard]] std::uint32_t top_id() const { return heap_.front().id; }

 private:
  struct Entry {
    double level;
    std::uint32_t id;
    bool operator<(const Entry& o) const noexcept { return level != o.level ? level < o.level : id < o.id; }
  };
  static constexpr std::uint32_t kAbsent = ~std::uint32_t{0};
  void place(std::uint32_t i, const Entry& e) {
    heap_[i] = e;
    position_[e.id] = i;
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
    position_[heap_[i].id] = kAbsent;
    const Entry last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    const Entry old = heap_[i];
    place(i, last);
    if (last < old) up(i);
    else down(i);
  }

  std::vector<Entry> heap_;
  std::vector<std::uint32_t> position_;
};

}  // namespace cs
