// The discrete-event core: a binary heap of pending events ordered by (time, sequence number).
//
// Ties at equal times run in scheduling order (the sequence number), so two runs of the same input execute the
// same events in the same order. Cancelling marks an event dead; it is skipped when popped (no queue scan).
// Complexity: schedule O(log n), cancel O(1), each pop O(log n). No globals: every Simulation owns one engine.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <unordered_set>
#include <vector>

#include "sim/core/units.hpp"

namespace cs {

/// Identifies a scheduled event so that it can be cancelled. Ids are never reused within one engine.
struct EventId {
  std::uint64_t seq = 0;
  constexpr auto operator<=>(const EventId&) const noexcept = default;
};

class EventEngine {
 public:
  using Handler = std::function<void()>;

  EventEngine() = default;
  EventEngine(const EventEngine&) = delete;
  EventEngine& operator=(const EventEngine&) = delete;

  /// Schedules `h` to run at absolute time `at` (>= now()). Throws std::logic_error for a time in the past.
  EventId schedule_at(Time at, Handler h);
  /// Schedules `h` to run `delay` after now().
  EventId schedule_in(Time delay, Handler h) { return schedule_at(now_ + delay, std::move(h)); }
  /// Cancels a pending event. Cancelling an event that already ran or was cancelled is a no-op.
  void cancel(EventId id);

  /// Runs events until none is left or the next one lies after `until`. Returns the number executed.
  std::uint64_t run(Time until = Time::max());

  [[nodiscard]] Time now() const noexcept { return now_; }
  [[nodiscard]] std::size_t pending() const noexcept { return live_.size(); }
  [[nodiscard]] std::uint64_t executed() const noexcept { return executed_; }

 private:
  struct Entry {
    Time at;
    std::uint64_t seq;
    Handler handler;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const noexcept {
      return a.at != b.at ? a.at > b.at : a.seq > b.seq;
    }
  };

  std::priority_queue<Entry, std::vector<Entry>, Later> heap_;
  std::unordered_set<std::uint64_t> live_;  // scheduled, not yet run, not cancelled; the rest are tombstones
  Time now_ = Time::zero();
  std::uint64_t next_seq_ = 0;
  std::uint64_t executed_ = 0;
};

}  // namespace cs
