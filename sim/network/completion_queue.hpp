// The flows' completion times: one entry per flow moving bytes, keyed by the time it is due, moved in place when
// a re-solve changes its rate.
#pragma once

#include "sim/core/units.hpp"
#include "sim/network/indexed_heap.hpp"

namespace cs {

using CompletionQueue = IndexedHeap<Time>;

}  // namespace cs
