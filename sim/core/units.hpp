// Physical quantities as distinct types, so that `Bytes / Bandwidth` is a `Time` and `Bytes + Time` does not
// compile. Only operators with a physical meaning exist.
//
// Time is an integer count of nanoseconds (int64): resolution 1 ns (well under 0.5 us), range +-292 years.
// Every other quantity is a double in SI base units (bytes, bytes/s, FLOP, FLOP/s, W, J, USD), because they are
// products of measured rates and never need exact equality.
#pragma once

#include <cmath>
#include <compare>
#include <concepts>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>

namespace cs {

/// Simulated time or a duration, in integer nanoseconds.
class Time {
 public:
  constexpr Time() noexcept = default;
  [[nodiscard]] static constexpr Time ns(std::int64_t v) noexcept { return Time{v}; }
  [[nodiscard]] static constexpr Time us(double v) noexcept { return from_seconds(v * 1e-6); }
  [[nodiscard]] static constexpr Time ms(double v) noexcept { return from_seconds(v * 1e-3); }
  /// Rounds to the nearest nanosecond.
  [[nodiscard]] static constexpr Time from_seconds(double s) noexcept {
    const double n = s * 1e9;
    return Time{static_cast<std::int64_t>(n < 0 ? n - 0.5 : n + 0.5)};
  }
  /// Rounds up to the next nanosecond: a transfer or kernel never takes less than its exact duration.
  [[nodiscard]] static Time ceil_seconds(double s) noexcept {
    return Time{static_cast<std::int64_t>(std::ceil(s * 1e9 - 1e-6))};
  }
  [[nodiscard]] static constexpr Time max() noexcept { return Time{std::numeric_limits<std::int64_t>::max()}; }
  [[nodiscard]] static constexpr Time zero() noexcept { return Time{0}; }

  [[nodiscard]] constexpr std::int64_t count_ns() const noexcept { return ns_; }
  [[nodiscard]] constexpr double seconds() const noexcept { return static_cast<double>(ns_) * 1e-9; }

  constexpr auto operator<=>(const Time&) const noexcept = default;
  constexpr Time operator+(Time o) const noexcept { return Time{ns_ + o.ns_}; }
  constexpr Time operator-(Time o) const noexcept { return Time{ns_ - o.ns_}; }
  constexpr Time& operator+=(Time o) noexcept { ns_ += o.ns_; return *this; }
  constexpr Time& operator-=(Time o) noexcept { ns_ -= o.ns_; return *this; }
  constexpr Time operator*(std::int64_t k) const noexcept { return Time{ns_ * k}; }
  /// Not by a floating factor (the int64 overload would truncate it): scale with from_seconds(seconds() * k).
  template <std::floating_point F>
  Time operator*(F) const = delete;
  [[nodiscard]] constexpr double operator/(Time o) const noexcept {
    return static_cast<double>(ns_) / static_cast<double>(o.ns_);
  }

 private:
  constexpr explicit Time(std::int64_t n) noexcept : ns_(n) {}
  std::int64_t ns_ = 0;
};

/// Prints "83.51 ms (83512971 ns)": readable and exact, for logs and test failures.
std::ostream& operator<<(std::ostream& os, Time t);

/// A double-valued quantity tagged by `Tag`; addition, subtraction and scaling keep the unit.
template <class Tag>
class Quantity {
 public:
  constexpr Quantity() noexcept = default;
  constexpr explicit Quantity(double si) noexcept : v_(si) {}
  [[nodiscard]] constexpr double value() const noexcept { return v_; }

  constexpr auto operator<=>(const Quantity&) const noexcept = default;
  constexpr Quantity operator+(Quantity o) const noexcept { return Quantity{v_ + o.v_}; }
  constexpr Quantity operator-(Quantity o) const noexcept { return Quantity{v_ - o.v_}; }
  constexpr Quantity& operator+=(Quantity o) noexcept { v_ += o.v_; return *this; }
  constexpr Quantity& operator-=(Quantity o) noexcept { v_ -= o.v_; return *this; }
  constexpr Quantity operator*(double k) const noexcept { return Quantity{v_ * k}; }
  constexpr Quantity operator/(double k) const noexcept { return Quantity{v_ / k}; }
  constexpr double operator/(Quantity o) const noexcept { return v_ / o.v_; }
  friend constexpr Quantity operator*(double k, Quantity q) noexcept { return Quantity{k * q.v_}; }

 private:
  double v_ = 0.0;
};

struct BytesTag {};
struct BandwidthTag {};
struct FlopsTag {};
struct FlopRateTag {};
struct WattsTag {};
struct JoulesTag {};
struct DollarsTag {};
struct DollarRateTag {};

using Bytes = Quantity<BytesTag>;           ///< bytes
using Bandwidth = Quantity<BandwidthTag>;   ///< bytes per second
using Flops = Quantity<FlopsTag>;           ///< floating-point operations (a count)
using FlopRate = Quantity<FlopRateTag>;     ///< FLOP per second
using Watts = Quantity<WattsTag>;           ///< watts
using Joules = Quantity<JoulesTag>;         ///< joules
using Dollars = Quantity<DollarsTag>;       ///< US dollars
using DollarRate = Quantity<DollarRateTag>; ///< US dollars per hour (prices are quoted per hour)

// The physically meaningful cross-unit operators, and no others.
[[nodiscard]] inline Time operator/(Bytes b, Bandwidth bw) noexcept { return Time::ceil_seconds(b.value() / bw.value()); }
[[nodiscard]] inline Time operator/(Flops f, FlopRate r) noexcept { return Time::ceil_seconds(f.value() / r.value()); }
[[nodiscard]] inline Bandwidth operator/(Bytes b, Time t) noexcept { return Bandwidth{b.value() / t.seconds()}; }
[[nodiscard]] inline FlopRate operator/(Flops f, Time t) noexcept { return FlopRate{f.value() / t.seconds()}; }
[[nodiscard]] inline Bytes operator*(Bandwidth bw, Time t) noexcept { return Bytes{bw.value() * t.seconds()}; }
[[nodiscard]] inline Joules operator*(Watts w, Time t) noexcept { return Joules{w.value() * t.seconds()}; }
[[nodiscard]] inline Watts operator/(Joules e, Time t) noexcept { return Watts{e.value() / t.seconds()}; }
[[nodiscard]] inline Dollars operator*(DollarRate r, Time t) noexcept { return Dollars{r.value() * t.seconds() / 3600.0}; }

constexpr Bytes operator""_B(unsigned long long v) noexcept { return Bytes{static_cast<double>(v)}; }
constexpr Bytes operator""_KiB(unsigned long long v) noexcept { return Bytes{static_cast<double>(v) * 1024.0}; }
constexpr Bytes operator""_MiB(unsigned long long v) noexcept { return Bytes{static_cast<double>(v) * 1048576.0}; }
constexpr Bytes operator""_GiB(unsigned long long v) noexcept { return Bytes{static_cast<double>(v) * 1073741824.0}; }
constexpr Bandwidth operator""_GBps(long double v) noexcept { return Bandwidth{static_cast<double>(v) * 1e9}; }
constexpr Bandwidth operator""_GBps(unsigned long long v) noexcept { return Bandwidth{static_cast<double>(v) * 1e9}; }

// ---- Parsing and printing of unit strings -------------------------------------------------------------------
// Accepted forms are a number, optional spaces, and a unit from the tables in units.cpp, for example
// "0.5us", "400Gbps", "900GB/s", "80GiB", "989TFLOP/s", "700W", "2.99USD/h". Decimal prefixes are powers of
// 1000, binary prefixes (Ki, Mi, Gi, Ti) powers of 1024; a lower-case 'b' means bits. Parsing throws
// UnitError naming the expected dimension.

class UnitError : public std::exception {
 public:
  explicit UnitError(std::string msg) : msg_(std::move(msg)) {}
  [[nodiscard]] const char* what() const noexcept override { return msg_.c_str(); }
 private:
  std::string msg_;
};

[[nodiscard]] Time parse_time(std::string_view s);
[[nodiscard]] Bytes parse_bytes(std::string_view s);
[[nodiscard]] Bandwidth parse_bandwidth(std::string_view s);
[[nodiscard]] Flops parse_flops(std::string_view s);
[[nodiscard]] FlopRate parse_flop_rate(std::string_view s);
[[nodiscard]] Watts parse_watts(std::string_view s);
[[nodiscard]] Joules parse_joules(std::string_view s);
[[nodiscard]] Dollars parse_dollars(std::string_view s);
[[nodiscard]] DollarRate parse_dollar_rate(std::string_view s);

/// Human-readable forms with an SI prefix chosen for 3-4 significant digits: "1.25 ms", "450 GB/s".
[[nodiscard]] std::string to_string(Time t);
[[nodiscard]] std::string to_string(Bytes b);      ///< binary prefixes: "80 GiB"
[[nodiscard]] std::string to_string(Bandwidth b);  ///< decimal bytes: "450 GB/s"
[[nodiscard]] std::string to_string(Flops f);
[[nodiscard]] std::string to_string(FlopRate r);
[[nodiscard]] std::string to_string(Watts w);
[[nodiscard]] std::string to_string(Joules e);
[[nodiscard]] std::string to_string(Dollars d);
[[nodiscard]] std::string to_string(DollarRate r);

}  // namespace cs
