// Collects replay spans and writes them as Chrome / Perfetto trace-event JSON: one process per
// representative GPU, one thread (track) per stream.
#pragma once

#include <string>
#include <vector>

#include "sim/replay/step_replay.hpp"

namespace cs {

class TraceWriter final : public ReplayObserver {
 public:
  void on_span(const Span& span) override { spans_.push_back(span); }
  /// The trace-event document ("traceEvents" with complete events, timestamps in microseconds).
  [[nodiscard]] std::string to_json() const;
  [[nodiscard]] std::size_t size() const noexcept { return spans_.size(); }

 private:
  std::vector<Span> spans_;
};

}  // namespace cs
