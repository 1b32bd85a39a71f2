#include "sim/core/human_units.hpp"

#include <array>
#include <cmath>
#include <cstdio>

namespace cs {
namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

/// Three significant digits, without exponent notation ("39.2", "512", "1.37").
std::string three_digits(double v) {
  const double a = std::fabs(v);
  return fixed(v, a >= 100 ? 0 : a >= 10 ? 1 : 2);
}

}  // namespace

std::string format_si(double value, const std::string& unit) {
  static constexpr std::array<const char*, 6> prefixes{"", "k", "M", "G", "T", "P"};
  if (!std::isfinite(value)) return "-";
  std::size_t i = 0;
  double v = value;
  // 999.5 would print as "1000" with three digits: step up a prefix there.
  while (std::fabs(v) >= 999.5 && i + 1 < prefixes.size()) {
    v /= 1000.0;
    ++i;
  }
  const std::string sep = unit.empty() && i == 0 ? "" : " ";
  return three_digits(v) + sep + prefixes[i] + unit;
}

std::string format_dollars(double usd) {
  if (!std::isfinite(usd)) return "-";
  const std::string sign = usd < 0 ? "-" : "";
  const double a = std::fabs(usd);
  if (a < 999.5) return sign + "$" + three_digits(a);
  return sign + "$" + format_si(a, "");
}

std::string format_dollars_per_year(double usd_per_year) {
  return std::isfinite(usd_per_year) ? format_dollars(usd_per_year) + "/yr" : "-";
}

std::string format_watts(double watts) { return format_si(watts, "W"); }

std::string format_energy(double joules) { return format_si(joules / 3600.0, "Wh"); }

std::string format_duration(double s) {
  if (!std::isfinite(s)) return "-";
  const double a = std::fabs(s);
  if (a >= 2 * 86400.0) return fixed(s / 86400.0, s / 86400.0 >= 100 ? 0 : 1) + " days";
  if (a >= 2 * 3600.0) return fixed(s / 3600.0, 1) + " h";
  if (a >= 120.0) return fixed(s / 60.0, 1) + " min";
  if (a >= 1.0) return three_digits(s) + " s";
  if (a >= 1e-3) return three_digits(s * 1e3) + " ms";
  return three_digits(s * 1e6) + " us";
}

std::string format_bytes(double bytes) { return format_si(bytes, "B"); }

std::string format_delta(double value, double baseline) {
  if (baseline == 0 || !std::isfinite(value) || !std::isfinite(baseline)) return "";
  const double change = 100.0 * (value - baseline) / std::fabs(baseline);
  if (std::fabs(change) < 0.05) return "±0 %";
  return (change > 0 ? "+" : "") + fixed(change, 1) + " %";
}

}  // namespace cs
