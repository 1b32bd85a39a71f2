#include "sim/core/event_engine.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cs {
namespace {

TEST(EventEngine, RunsEventsInTimeOrder) {
  EventEngine e;
  std::vector<int> order;
  e.schedule_at(Time::ns(30), [&] { order.push_back(3); });
  e.schedule_at(Time::ns(10), [&] { order.push_back(1); });
  e.schedule_at(Time::ns(20), [&] { order.push_back(2); });
  EXPECT_EQ(e.run(), 3u);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(e.now(), Time::ns(30));
}

TEST(EventEngine, BreaksTiesBySchedulingOrder) {
  EventEngine e;
  std::string s;
  for (char c : std::string("abcdef")) e.schedule_at(Time::ns(5), [&s, c] { s += c; });
  e.run();
  EXPECT_EQ(s, "abcdef");
}

TEST(EventEngine, HandlersCanScheduleMoreEvents) {
  EventEngine e;
  int fired = 0;
  std::function<void()> tick = [&] {
    if (++fired < 4) e.schedule_in(Time::ns(7), tick);
  };
  e.schedule_at(Time::zero(), tick);
  e.run();
  EXPECT_EQ(fired, 4);
  EXPECT_EQ(e.now(), Time::ns(21));  // 3 re-schedules of 7 ns
}

TEST(EventEngine, CancelledEventsNeverRun) {
  EventEngine e;
  bool a = false, b = false;
  const EventId ia = e.schedule_at(Time::ns(1), [&] { a = true; });
  e.schedule_at(Time::ns(2), [&] { b = true; });
  e.cancel(ia);
  EXPECT_EQ(e.pending(), 1u);
  EXPECT_EQ(e.run(), 1u);
  EXPECT_FALSE(a);
  EXPECT_TRUE(b);
}

TEST(EventEngine, CancelAfterRunIsHarmless) {
  EventEngine e;
  int n = 0;
  const EventId id = e.schedule_at(Time::ns(1), [&] { ++n; });
  e.run();
  e.cancel(id);
  EXPECT_EQ(e.pending(), 0u);
  e.schedule_at(Time::ns(2), [&] { ++n; });
  e.run();
  EXPECT_EQ(n, 2);
}

TEST(EventEngine, RunUntilStopsBeforeLaterEvents) {
  EventEngine e;
  int n = 0;
  e.schedule_at(Time::ns(10), [&] { ++n; });
  e.schedule_at(Time::ns(20), [&] { ++n; });
  EXPECT_EQ(e.run(Time::ns(15)), 1u);
  EXPECT_EQ(e.pending(), 1u);
  EXPECT_EQ(e.run(), 1u);
  EXPECT_EQ(n, 2);
}

TEST(EventEngine, RejectsEventsInThePast) {
  EventEngine e;
  e.schedule_at(Time::ns(10), [] {});
  e.run();
  EXPECT_THROW(e.schedule_at(Time::ns(5), [] {}), std::logic_error);
}

TEST(EventEngine, IsDeterministic) {
  // Two engines fed the same pseudo-random schedule produce the same trace.
  auto trace = [] {
    EventEngine e;
    std::string out;
    std::uint64_t x = 42;
    for (int i = 0; i < 1000; ++i) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      const auto t = static_cast<std::int64_t>((x >> 33) % 50);
      e.schedule_at(Time::ns(t), [&out, i, &e] { out += std::to_string(i) + "@" + std::to_string(e.now().count_ns()) + ";"; });
    }
    e.run();
    return out;
  };
  EXPECT_EQ(trace(), trace());
}

}  // namespace
}  // namespace cs
