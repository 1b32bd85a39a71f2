// The indexed heap under the completion queue and the solver's level heap: (key, id) order, keys moved in place,
// erase, clear, and one entry per id however often it is set.
#include "sim/network/indexed_heap.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "sim/network/completion_queue.hpp"
#include "sim/network/level_heap.hpp"

namespace cs {
namespace {

std::vector<std::uint32_t> drain(IndexedHeap<double>& h) {
  std::vector<std::uint32_t> out;
  while (!h.empty()) {
    out.push_back(h.top().id);
    h.pop();
  }
  return out;
}

TEST(IndexedHeap, PopsByKeyThenIdAndMovesKeysInPlace) {
  IndexedHeap<double> h;
  h.set(3, 2.0);
  h.set(1, 2.0);  // equal keys: the smaller id first
  h.set(7, 0.5);
  h.set(4, 9.0);
  h.set(7, 5.0);  // moved down, not duplicated
  h.set(4, 1.0);  // moved up
  EXPECT_EQ(drain(h), (std::vector<std::uint32_t>{4, 1, 3, 7}));
}

TEST(IndexedHeap, EraseAndClearForgetIds) {
  IndexedHeap<double> h;
  for (std::uint32_t i = 0; i < 10; ++i) h.set(i, 10.0 - i);
  h.erase(9);
  h.erase(42);  // never queued: nothing happens
  h.erase(0);
  EXPECT_EQ(h.top().id, 8u);
  h.clear();
  EXPECT_TRUE(h.empty());
  h.set(5, 1.0);  // ids are reusable after clear()
  EXPECT_EQ(drain(h), (std::vector<std::uint32_t>{5}));
}

TEST(IndexedHeap, CompletionQueueAndLevelHeapAreIt) {
  CompletionQueue q;
  q.set(2, Time::us(5));
  q.set(1, Time::us(5));
  q.set(0, Time::us(7));
  EXPECT_EQ(q.top().id, 1u);
  EXPECT_EQ(q.top().key, Time::us(5));
  LevelHeap l;
  l.reserve_ids(4);
  l.set(3, 0.25);
  l.set(2, 0.5);
  EXPECT_EQ(l.top_id(), 3u);
  EXPECT_DOUBLE_EQ(l.top_level(), 0.25);
}

}  // namespace
}  // namespace cs
