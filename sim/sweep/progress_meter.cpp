#include "sim/sweep/progress_meter.hpp"

#include <fmt/format.h>

namespace cs {

std::string ProgressMeter::describe(const SweepProgress& p) {
  std::string s = fmt::format("{}/{} points", p.done, p.total);
  if (p.failed > 0) s += fmt::format(" ({} failed)", p.failed);
  if (p.done > 0 && p.elapsed_s > 0) {
    const double rate = static_cast<double>(p.done) / p.elapsed_s;
    const double eta = static_cast<double>(p.total - p.done) / rate;
    s += rate >= 1 ? fmt::format(", {:.1f} points/s", rate) : fmt::format(", {:.1f} s/point", 1 / rate);
    if (p.done < p.total) s += fmt::format(", ETA {:.0f} s", eta);
  }
  s += fmt::format(", {:.1f} s elapsed", p.elapsed_s);
  return s;
}

void ProgressMeter::update(const SweepProgress& p) {
  if (terminal_) {
    constexpr int kWidth = 30;
    const int filled = p.total == 0 ? kWidth : static_cast<int>(kWidth * p.done / p.total);
    std::string bar(static_cast<std::size_t>(filled), '=');
    if (filled < kWidth) bar += '>' + std::string(static_cast<std::size_t>(kWidth - filled - 1), ' ');
    out_ << "\r[" << bar << "] " << describe(p) << "\x1b[K" << std::flush;
    drawn_ = true;
    return;
  }
  const bool last = p.done == p.total;
  if (p.done == last_done_ && !last) return;
  if (last && p.done == last_done_) return;
  if (!last && last_line_s_ >= 0 && p.elapsed_s - last_line_s_ < 5.0) return;
  out_ << "sweep: " << describe(p) << "\n" << std::flush;
  last_line_s_ = p.elapsed_s;
  last_done_ = p.done;
}

void ProgressMeter::finish() {
  if (terminal_ && drawn_) out_ << "\n" << std::flush;
  drawn_ = false;
}

}  // namespace cs
