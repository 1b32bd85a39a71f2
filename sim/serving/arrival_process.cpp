#include "sim/serving/arrival_process.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace cs {

double ServingRng::uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

double ServingRng::exponential(double rate) { return -std::log1p(-uniform()) / rate; }

double ServingRng::normal() {
  if (spare_) {
    const double z = *spare_;
    spare_.reset();
    return z;
  }
  const double u1 = 1.0 - uniform();  // (0, 1]: the logarithm stays finite
  const double u2 = uniform();
  const double r = std::sqrt(-2.0 * std::log(u1));
  spare_ = r * std::sin(2.0 * std::numbers::pi * u2);
  return r * std::cos(2.0 * std::numbers::pi * u2);
}

ArrivalTimes::ArrivalTimes(const LoadConfig& load, ServingRng& rng)
    : hourly_(load.arrivals == ArrivalKind::diurnal ? load.diurnal : std::vector<double>{load.rate}), rng_(rng) {}

double ArrivalTimes::rate_at(Time t) const {
  if (hourly_.size() == 1) return hourly_.front();
  const auto hour = static_cast<std::size_t>(std::floor(t.seconds() / 3600.0));
  return hourly_[hour % hourly_.size()];
}

Time ArrivalTimes::next() {
  if (hourly_.size() == 1) {
    now_s_ += rng_.exponential(hourly_.front());
    return Time::from_seconds(now_s_);
  }
  // Every rate zero would never arrive: the caller's end of arrivals stops it first (checked by the config).
  if (std::all_of(hourly_.begin(), hourly_.end(), [](double r) { return r <= 0; })) return Time::max();
  while (true) {
    const double hour = std::floor(now_s_ / 3600.0);
    const double end = (hour + 1.0) * 3600.0;
    const double rate = hourly_[static_cast<std::size_t>(hour) % hourly_.size()];
    if (rate > 0) {
      const double t = now_s_ + rng_.exponential(rate);
      if (t < end) {
        now_s_ = t;
        return Time::from_seconds(now_s_);
      }
    }
    now_s_ = end;
  }
}

std::int64_t draw_length(const LengthDist& d, ServingRng& rng) {
  double v = 0;
  switch (d.kind) {
    case LengthKind::fixed: return d.value;
    case LengthKind::uniform:
      return d.min + std::min<std::int64_t>(d.max - d.min,
                                            static_cast<std::int64_t>(rng.uniform() *
                                                                      static_cast<double>(d.max - d.min + 1)));
    case LengthKind::lognormal: {
      const double mu = std::log(d.mean) - d.sigma * d.sigma / 2.0;
      v = std::round(std::exp(mu + d.sigma * rng.normal()));
      break;
    }
    case LengthKind::trace: return 0;
  }
  return std::clamp(static_cast<std::int64_t>(std::min(v, 1e15)), d.min, d.max);
}

RequestSource::RequestSource(const LoadConfig& load, Time until, std::uint64_t seed,
                             const std::vector<TraceRequest>* trace)
    : load_(load), until_(until), rng_(seed), trace_(trace) {
  if (load_.arrivals != ArrivalKind::trace) times_.emplace(load_, rng_);
}

std::optional<RequestSpec> RequestSource::next() {
  RequestSpec r;
  const TraceRequest* row = nullptr;
  if (trace_ && trace_next_ < trace_->size()) row = &(*trace_)[trace_next_];
  if (times_) {
    r.arrival = times_->next();
  } else {
    if (!row) return std::nullopt;
    r.arrival = row->arrival;
  }
  if (r.arrival >= until_) return std::nullopt;
  if (row) ++trace_next_;
  const auto length = [&](const LengthDist& d, std::int64_t traced) {
    return d.kind == LengthKind::trace ? traced : draw_length(d, rng_);
  };
  r.prompt = length(load_.prompt, row ? row->prompt : 0);
  r.output = length(load_.output, row ? row->output : 0);
  return r;
}

}  // namespace cs
