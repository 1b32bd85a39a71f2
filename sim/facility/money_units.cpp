#include "sim/facility/money_units.hpp"

#include <array>
#include <charconv>
#include <utility>

namespace cs {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

struct UnitSpelling {
  std::string_view text;
  PriceUnit unit;
  double factor;
};

// The whole unit text must match one spelling; the factor converts to the canonical amount.
constexpr std::array<UnitSpelling, 16> kSpellings{{
    {"USD", PriceUnit::each, 1.0},
    {"kUSD", PriceUnit::each, 1e3},
    {"MUSD", PriceUnit::each, 1e6},
    {"USD/h", PriceUnit::per_hour, 1.0},
    {"USD/hour", PriceUnit::per_hour, 1.0},
    {"USD/yr", PriceUnit::per_year, 1.0},
    {"USD/year", PriceUnit::per_year, 1.0},
    {"USD/kWh", PriceUnit::per_kwh, 1.0},
    {"USD/MWh", PriceUnit::per_kwh, 1e-3},
    {"USD/kW/month", PriceUnit::per_kw_month, 1.0},
    {"USD/kW-month", PriceUnit::per_kw_month, 1.0},
    {"USD/kW/mo", PriceUnit::per_kw_month, 1.0},
    {"USD/TB", PriceUnit::per_terabyte, 1.0},
    {"USD/PB", PriceUnit::per_terabyte, 1e-3},
    {"USD/W", PriceUnit::per_watt, 1.0},
    {"USD/MW", PriceUnit::per_watt, 1e-6},
}};

}  // namespace

std::string_view unit_text(PriceUnit u) noexcept {
  switch (u) {
    case PriceUnit::each: return "USD";
    case PriceUnit::per_hour: return "USD/h";
    case PriceUnit::per_year: return "USD/yr";
    case PriceUnit::per_kwh: return "USD/kWh";
    case PriceUnit::per_kw_month: return "USD/kW/month";
    case PriceUnit::per_terabyte: return "USD/TB";
    case PriceUnit::per_watt: return "USD/W";
  }
  return "USD";
}

QuotedPrice parse_price(std::string_view s) {
  s = trim(s);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end == s.data() || !std::isfinite(v)) {
    throw UnitError("expected a price such as \"36000USD\", \"2.99USD/h\" or \"0.08USD/kWh\", got \"" +
                    std::string(s) + "\"");
  }
  if (v < 0) throw UnitError("price \"" + std::string(s) + "\" is negative");
  const std::string_view unit = trim(s.substr(static_cast<std::size_t>(end - s.data())));
  for (const auto& sp : kSpellings) {
    if (sp.text == unit) return {v * sp.factor, sp.unit};
  }
  throw UnitError((unit.empty() ? "\"" + std::string(s) + "\" has no unit"
                                : "unknown price unit \"" + std::string(unit) + "\"") +
                  "; use USD, USD/h, USD/yr, USD/kWh, USD/kW/month, USD/TB or USD/W");
}

double parse_price_in(std::string_view s, PriceUnit unit) {
  const QuotedPrice p = parse_price(s);
  if (p.unit != unit) {
    throw UnitError("expected a price in " + std::string(unit_text(unit)) + ", got \"" + std::string(trim(s)) +
                    "\" (" + std::string(unit_text(p.unit)) + ")");
  }
  return p.amount;
}

}  // namespace cs
