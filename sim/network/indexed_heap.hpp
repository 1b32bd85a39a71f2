// An indexed binary min-heap over small integer ids: one entry per id, moved in place when its key changes (no
// stale entries pile up, so the heap never holds more than the live ids), ordered by (key, id) so that equal keys
// pop in a fixed order. All operations O(log n). The flows' completion times (CompletionQueue, keyed by Time)
// and the max-min solver's constraint fill levels (LevelHeap, keyed by a double) are both this heap.
#pragma once

#include <cstdint>
#include <vector>

namespace cs {

template <class Key>
class IndexedHeap {
 public:
  struct Entry {
    Key key;
    std::uint32_t id;
    bool operator<(const Entry& o) const noexcept { return key != o.key ? key < o.key : id < o.id; }
  };

  /// Makes room for ids below `n` (all absent); set() also grows on demand.
  void reserve_ids(std::size_t n) {
    if (position_.size() < n) position_.resize(n, kAbsent);
  }
  /// Empties the heap (O(size)).
  void clear() {
    for (const Entry& e : heap_) position_[e.id] = kAbsent;
    heap_.clear();
  }
  /// Inserts `id` with `key`, or moves it there if it is queued.
  void set(std::uint32_t id, Key key) {
    if (id >= position_.size()) position_.resize(id + 1, kAbsent);
    std::uint32_t i = position_[id];
    if (i == kAbsent) {
      i = static_cast<std::uint32_t>(heap_.size());
      heap_.push_back({key, id});
      position_[id] = i;
      up(i);
      return;
    }
    const Entry old = heap_[i];
    heap_[i].key = key;
    if (heap_[i] < old) up(i);
    else down(i);
  }
  void erase(std::uint32_t id) {
    if (id < position_.size() && position_[id] != kAbsent) erase_at(position_[id]);
  }
  [[nodiscard]] bool empty() const noexcept { return heap_.empty(); }
  [[nodiscard]] const Entry& top() const { return heap_.front(); }
  void pop() { erase_at(0); }

 private:
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
  std::vector<std::uint32_t> position_;  // id -> index in heap_, or kAbsent
};

}  // namespace cs
