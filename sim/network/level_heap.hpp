// The max-min solver's constraints keyed by their fill level (capacity left / unfixed weight), one entry each.
#pragma once

#include <cstdint>

#include "sim/network/indexed_heap.hpp"

namespace cs {

class LevelHeap : public IndexedHeap<double> {
 public:
  [[nodiscard]] double top_level() const { return top().key; }
  [[nodiscard]] std::uint32_t top_id() const { return top().id; }
};

}  // namespace cs
