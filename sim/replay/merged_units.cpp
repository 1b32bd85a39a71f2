#include "sim/replay/merged_units.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace cs {

void append_phase(std::vector<Phase>& phases, Phase p) {
  if (p.time <= Time::zero()) return;
  if (!phases.empty() && phases.back().ep == p.ep) phases.back().time += p.time;
  else phases.push_back(p);
}

Time merged_time(const std::vector<Phase>& a, const std::vector<Phase>& b, double compute_slowdown) {
  struct Chain {
    const std::vector<Phase>* phases;
    std::size_t next = 0;
    double ready = 0;  // when its previous phase ended
    double left = 0;   // seconds of work left in the running phase
    bool running = false;
    [[nodiscard]] bool waiting_on(int stream) const {
      return !running && next < phases->size() && ((*phases)[next].ep ? 1 : 0) == stream;
    }
  };
  std::array<Chain, 2> chains{Chain{&a}, Chain{&b}};
  std::array<int, 2> on{-1, -1};  // the chain running on the compute (0) and the communication (1) stream
  double t = 0;
  for (;;) {
    for (int s = 0; s < 2; ++s) {
      if (on[s] >= 0) continue;
      int pick = -1;
      for (int c = 0; c < 2; ++c) {
        const Chain& x = chains[static_cast<std::size_t>(c)];
        if (x.waiting_on(s) && (pick < 0 || x.ready < chains[static_cast<std::size_t>(pick)].ready)) pick = c;
      }
      if (pick < 0) continue;
      Chain& x = chains[static_cast<std::size_t>(pick)];
      x.running = true;
      x.left = (*x.phases)[x.next].time.seconds();
      on[s] = pick;
    }
    if (on[0] < 0 && on[1] < 0) break;  // neither stream has work: both chains are done
    const double compute_rate = on[1] >= 0 ? 1.0 / (1.0 + compute_slowdown) : 1.0;
    const std::array<double, 2> rate{compute_rate, 1.0};
    double dt = std::numeric_limits<double>::infinity();
    for (int s = 0; s < 2; ++s) {
      if (on[s] >= 0) dt = std::min(dt, chains[static_cast<std::size_t>(on[s])].left / rate[static_cast<std::size_t>(s)]);
    }
    t += dt;
    for (int s = 0; s < 2; ++s) {
      if (on[s] < 0) continue;
      Chain& x = chains[static_cast<std::size_t>(on[s])];
      x.left -= dt * rate[static_cast<std::size_t>(s)];
      if (x.left <= 1e-12) {  // a picosecond: rounding, not work
        x.running = false;
        x.ready = t;
        ++x.next;
        on[s] = -1;
      }
    }
  }
  return Time::from_seconds(t);
}

}  // namespace cs
