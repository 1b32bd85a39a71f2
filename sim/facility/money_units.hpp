// Price units the facility layer needs beyond units.hpp: an energy price (USD per kWh) and a capacity rent
// (USD per kW of contracted IT power per month). Both are stored in SI (USD per joule, USD per watt-second)
// like every other Quantity, and are only used here, so they live in this layer.
#pragma once

#include "sim/core/units.hpp"

namespace cs {

inline constexpr double kHoursPerYear = 8766.0;              ///< 365.25 days
inline constexpr double kHoursPerMonth = kHoursPerYear / 12.0;  ///< 730.5 h
inline constexpr double kJoulesPerKwh = 3.6e6;
inline constexpr double kNsPerYear = kHoursPerYear * 3600e9;  ///< 3.15576e16, exact in a double

struct EnergyPriceTag {};
struct CapacityRentTag {};
using EnergyPrice = Quantity<EnergyPriceTag>;    ///< USD per joule; quoted as USD/kWh
using CapacityRent = Quantity<CapacityRentTag>;  ///< USD per watt per second; quoted as USD/kW/month

[[nodiscard]] constexpr EnergyPrice usd_per_kwh(double v) noexcept { return EnergyPrice{v / kJoulesPerKwh}; }
[[nodiscard]] constexpr double to_usd_per_kwh(EnergyPrice p) noexcept { return p.value() * kJoulesPerKwh; }
[[nodiscard]] constexpr CapacityRent usd_per_kw_month(double v) noexcept {
  return CapacityRent{v / (1000.0 * kHoursPerMonth * 3600.0)};
}
[[nodiscard]] constexpr double to_usd_per_kw_month(CapacityRent r) noexcept {
  return r.value() * 1000.0 * kHoursPerMonth * 3600.0;
}

[[nodiscard]] inline Dollars operator*(EnergyPrice p, Joules e) noexcept { return Dollars{p.value() * e.value()}; }
/// Rent of `w` of contracted capacity held for `t`.
[[nodiscard]] inline Dollars capacity_cost(CapacityRent r, Watts w, Time t) noexcept {
  return Dollars{r.value() * w.value() * t.seconds()};
}

/// A yearly cost as a DollarRate (USD/h): `per_year(1e6)` is one million dollars a year.
[[nodiscard]] constexpr DollarRate per_year(double usd) noexcept { return DollarRate{usd / kHoursPerYear}; }
[[nodiscard]] constexpr double usd_per_year(DollarRate r) noexcept { return r.value() * kHoursPerYear; }
/// A duration of `y` years of 365.25 days, to the nearest nanosecond (Time holds +-292 years). One rounded
/// product, so in_years(years(y)) == y for every y a person writes (up to 4 decimals, 1 to 60 years).
[[nodiscard]] constexpr Time years(double y) noexcept {
  const double ns = y * kNsPerYear;
  return Time::ns(static_cast<std::int64_t>(ns < 0 ? ns - 0.5 : ns + 0.5));
}
[[nodiscard]] constexpr double in_years(Time t) noexcept { return static_cast<double>(t.count_ns()) / kNsPerYear; }

/// What a quoted price is per. The amount of a QuotedPrice is in the unit named here.
enum class PriceUnit {
  each,          ///< USD per item
  per_hour,      ///< USD/h (a GPU-hour for cloud rates)
  per_year,      ///< USD/yr (support, salaries)
  per_kwh,       ///< USD/kWh (electricity)
  per_kw_month,  ///< USD/kW/month (colocation, per kW of contracted IT power)
  per_terabyte,  ///< USD/TB (storage, decimal terabytes)
  per_watt,      ///< USD/W (facility construction per watt of IT capacity)
};
[[nodiscard]] std::string_view unit_text(PriceUnit u) noexcept;  ///< "USD", "USD/h", ... as written in inputs

struct QuotedPrice {
  double amount = 0.0;
  PriceUnit unit = PriceUnit::each;
};

/// Parses a price with its unit: "36000USD", "1.2MUSD", "2.99USD/h", "39800USD/yr", "0.0826USD/kWh",
/// "82.6USD/MWh", "184USD/kW/month", "250USD/TB", "15USD/W". Throws UnitError.
[[nodiscard]] QuotedPrice parse_price(std::string_view s);
/// parse_price, requiring `unit`. Throws UnitError naming the expected unit.
[[nodiscard]] double parse_price_in(std::string_view s, PriceUnit unit);

}  // namespace cs
