#include "sim/core/event_engine.hpp"

#include <stdexcept>

namespace cs {

EventId EventEngine::schedule_at(Time at, Handler h) {
  if (at < now_) {
    throw std::logic_error("event scheduled in the past: at " + to_string(at) + ", now " + to_string(now_));
  }
  const std::uint64_t seq = next_seq_++;
  heap_.push(Entry{at, seq, std::move(h)});
  live_.insert(seq);
  return EventId{seq};
}

void EventEngine::cancel(EventId id) {
  live_.erase(id.seq);
}

std::uint64_t EventEngine::run(Time until) {
  std::uint64_t n = 0;
  while (!heap_.empty()) {
    if (heap_.top().at > until) break;
    // top() is const only to protect the heap order; moving the handler out just before pop() is safe.
    Entry e = std::move(const_cast<Entry&>(heap_.top()));
    heap_.pop();
    if (live_.erase(e.seq) == 0) continue;  // cancelled
    now_ = e.at;
    e.handler();
    ++n;
    ++executed_;
  }
  return n;
}

}  // namespace cs
