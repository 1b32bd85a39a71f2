// The Router's memo of the routes it has computed: a route key -> where the route lies in the router's channel
// pool. Open addressing with linear probing, at most half full, so a lookup is usually one probe into one
// contiguous array (std::unordered_map took a bucket, then a node: two cache misses for the route of every
// flow). Keys are the Router's 64-bit route keys; entries are never removed.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"

namespace cs {

class RouteTable {
 public:
  struct Entry {
    std::uint32_t offset;  // in the router's pool
    std::uint32_t length;
    Time latency;
  };

  /// The entry stored under `key`, or nullptr.
  [[nodiscard]] const Entry* find(std::uint64_t key) const noexcept {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.entry;
    }
  }
  /// Stores `entry` under `key`, which must not be stored yet.
  void insert(std::uint64_t key, const Entry& entry) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    place(key, entry);
    ++size_;
  }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 private:
  struct Slot {
    std::uint64_t key = 0;
    Entry entry{};
    bool used = false;
  };
  // Fibonacci hashing: the top bits of key x 2^64 / golden ratio.
  [[nodiscard]] std::size_t home(std::uint64_t key) const noexcept {
    return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ULL) >> shift_);
  }
  void place(std::uint64_t key, const Entry& entry) noexcept {
    std::size_t i = home(key);
    while (slots_[i].used) i = (i + 1) & mask_;
    slots_[i] = {key, entry, true};
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t capacity = old.empty() ? 1024 : 2 * old.size();
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    shift_ = 64U - static_cast<unsigned>(std::countr_zero(capacity));
    for (const Slot& s : old) {
      if (s.used) place(s.key, s.entry);
    }
  }

  std::vector<Slot> slots_;  // size a power of two
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  std::size_t size_ = 0;
};

}  // namespace cs
