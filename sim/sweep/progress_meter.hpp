// Progress of a sweep on standard error: a redrawn bar on a terminal ("[=====>    ] 37/100 points,
// 2.3 points/s, ETA 27 s"), plain lines (at most one per 5 s, and the last) when not a terminal.
#pragma once

#include <chrono>
#include <ostream>
#include <string>

#include "sim/sweep/sweep_runner.hpp"

namespace cs {

class ProgressMeter {
 public:
  ProgressMeter(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}
  void update(const SweepProgress& p);
  /// Ends the bar's line on a terminal.
  void finish();
  /// "37/100 points, 2.3 points/s, ETA 27 s" (rate and ETA once a point is done).
  [[nodiscard]] static std::string describe(const SweepProgress& p);

 private:
  std::ostream& out_;
  bool terminal_;
  bool drawn_ = false;
  double last_line_s_ = -1;
  std::size_t last_done_ = static_cast<std::size_t>(-1);
};

}  // namespace cs
