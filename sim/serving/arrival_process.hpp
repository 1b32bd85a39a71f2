// Where requests come from, split as Vidur splits it: an interval generator (when the next request arrives) and
// a length generator (how long its prompt and output are), combined by RequestSource.
//
// Random draws use std::mt19937_64, whose output the C++ standard fixes, with this file's own transforms
// (uniform, exponential, Box-Muller normal) instead of the library's distributions, which differ between
// standard libraries: the same seed gives the same requests on every platform.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/serving/request_trace.hpp"
#include "sim/serving/serving_config.hpp"

namespace cs {

/// A seeded source of the draws arrivals and lengths need.
class ServingRng {
 public:
  explicit ServingRng(std::uint64_t seed) : engine_(seed) {}
  /// Uniform in [0, 1), 53 random bits.
  [[nodiscard]] double uniform();
  /// Exponential with mean 1 / rate: -ln(1 - U) / rate.
  [[nodiscard]] double exponential(double rate);
  /// Standard normal (Box-Muller; the second value of each pair is kept for the next call).
  [[nodiscard]] double normal();

 private:
  std::mt19937_64 engine_;
  std::optional<double> spare_;
};

/// Arrival times of a Poisson process of constant rate, or of one whose rate is constant within each hour of the
/// day (diurnal: rate[h] during [h, h + 1) hours after midnight, the run starting at midnight). Exact for
/// piecewise-constant rates: an interval that crosses an hour's end is redrawn from there at the next hour's rate
/// (the exponential has no memory), and hours of rate 0 are skipped.
class ArrivalTimes {
 public:
  ArrivalTimes(const LoadConfig& load, ServingRng& rng);
  /// The next arrival after the previous one (the first after time zero).
  [[nodiscard]] Time next();
  /// Requests per second at time t.
  [[nodiscard]] double rate_at(Time t) const;

 private:
  std::vector<double> hourly_;  ///< one rate (poisson) or 24 (diurnal)
  ServingRng& rng_;
  double now_s_ = 0.0;
};

/// Draws one length from `dist` (not LengthKind::trace): fixed; uniform on [min, max]; lognormal with the given
/// mean and sigma of the logarithm (mu = ln(mean) - sigma^2 / 2), rounded to the nearest token; both clamped
/// to [min, max].
[[nodiscard]] std::int64_t draw_length(const LengthDist& dist, ServingRng& rng);

/// One request as it arrives.
struct RequestSpec {
  Time arrival;
  std::int64_t prompt = 0;
  std::int64_t output = 0;
};

/// Requests in arrival order until `until` (exclusive): from the trace (its lengths where the distributions say
/// trace) or from the arrival process and the length distributions.
class RequestSource {
 public:
  /// `trace` must be given (and outlive this source) when load.arrivals is trace.
  RequestSource(const LoadConfig& load, Time until, std::uint64_t seed,
                const std::vector<TraceRequest>* trace = nullptr);
  RequestSource(const RequestSource&) = delete;  // its arrival times hold a reference to its generator
  RequestSource& operator=(const RequestSource&) = delete;
  /// The next request, or nullopt once arrivals reach `until` or the trace ends.
  [[nodiscard]] std::optional<RequestSpec> next();

 private:
  LoadConfig load_;
  Time until_;
  ServingRng rng_;
  std::optional<ArrivalTimes> times_;
  const std::vector<TraceRequest>* trace_;
  std::size_t trace_next_ = 0;
};

}  // namespace cs
