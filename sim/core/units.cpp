#include "sim/core/units.hpp"

#include <array>
#include <charconv>
#include <cstdio>
#include <optional>
#include <utility>

namespace cs {
namespace {

struct Prefix {
  std::string_view symbol;
  double factor;
};

// Longest symbols first so that "Ki" wins over "K".
constexpr std::array<Prefix, 14> kPrefixes{{
    {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
    {"Pi", 1125899906842624.0}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12},
    {"P", 1e15}, {"E", 1e18}, {"m", 1e-3}, {"", 1.0},
}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/// Splits "12.5 GB/s" into 12.5 and "GB/s". Throws when no number leads.
std::pair<double, std::string_view> split_number(std::string_view s, std::string_view dimension) {
  s = trim(s);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end == s.data()) {
    throw UnitError("expected a " + std::string(dimension) + " such as " +
                    (dimension == "time" ? "\"0.5us\"" : "a number followed by a unit") + ", got \"" +
                    std::string(s) + "\"");
  }
  if (!std::isfinite(v)) throw UnitError("value \"" + std::string(s) + "\" is not finite");
  return {v, trim(s.substr(static_cast<std::size_t>(end - s.data())))};
}

/// Matches `unit` against prefix+base for each base in `bases` (base -> factor). Prefixes `m` are only
/// allowed where `allow_milli` is set (milliwatts make sense, millibytes do not).
std::optional<double> match_prefixed(std::string_view unit,
                                     std::initializer_list<std::pair<std::string_view, double>> bases,
                                     bool allow_milli = false) {
  for (const auto& [base, base_factor] : bases) {
    if (unit.size() < base.size() || unit.substr(unit.size() - base.size()) != base) continue;
    const std::string_view p = unit.substr(0, unit.size() - base.size());
    for (const auto& pre : kPrefixes) {
      if (pre.symbol == p && (allow_milli || pre.symbol != "m")) return pre.factor * base_factor;
    }
  }
  return std::nullopt;
}

template <class Q>
Q parse_with(std::string_view s, std::string_view dimension, std::string_view examples,
             std::initializer_list<std::pair<std::string_view, double>> bases, bool allow_milli = false) {
  const auto [v, unit] = split_number(s, dimension);
  if (unit.empty()) {
    throw UnitError("\"" + std::string(trim(s)) + "\" has no unit; write a " + std::string(dimension) + " such as " +
                    std::string(examples));
  }
  if (auto f = match_prefixed(unit, bases, allow_milli)) return Q{v * *f};
  throw UnitError("unknown " + std::string(dimension) + " unit \"" + std::string(unit) + "\"; write a " +
                  std::string(dimension) + " such as " + std::string(examples));
}

std::string format_scaled(double v, std::string_view unit, bool binary = false) {
  static constexpr std::array<std::string_view, 7> dec{"", "k", "M", "G", "T", "P", "E"};
  static constexpr std::array<std::string_view, 7> bin{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  const double step = binary ? 1024.0 : 1000.0;
  std::size_t i = 0;
  double a = std::fabs(v);
  while (a >= step && i + 1 < dec.size()) {
    a /= step;
    v /= step;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g %s%s", v, std::string((binary ? bin : dec)[i]).c_str(),
                std::string(unit).c_str());
  return buf;
}

}  // namespace

Time parse_time(std::string_view s) {
  const auto [v, unit] = split_number(s, "time");
  static constexpr std::array<std::pair<std::string_view, double>, 12> units{{
      {"ns", 1e-9}, {"us", 1e-6}, {"\xC2\xB5s", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {"min", 60.0},
      {"h", 3600.0}, {"hour", 3600.0}, {"hours", 3600.0}, {"d", 86400.0}, {"day", 86400.0}, {"days", 86400.0},
  }};
  for (const auto& [u, f] : units) {
    if (u == unit) return Time::from_seconds(v * f);
  }
  throw UnitError(unit.empty() ? "\"" + std::string(trim(s)) + "\" has no unit; write a time such as \"0.5us\", \"2ms\", \"30d\""
                               : "unknown time unit \"" + std::string(unit) + "\"; use ns, us, ms, s, min, h or d");
}

Bytes parse_bytes(std::string_view s) {
  return parse_with<Bytes>(s, "size", "\"80GiB\" or \"1.5TB\"", {{"B", 1.0}, {"bytes", 1.0}, {"byte", 1.0}});
}

Bandwidth parse_bandwidth(std::string_view s) {
  return parse_with<Bandwidth>(s, "bandwidth", "\"900GB/s\" or \"400Gbps\"",
                               {{"B/s", 1.0}, {"Bps", 1.0}, {"bps", 0.125}, {"b/s", 0.125}, {"bit/s", 0.125}});
}

Flops parse_flops(std::string_view s) {
  return parse_with<Flops>(s, "FLOP count", "\"3.1e23FLOP\" or \"5PFLOP\"", {{"FLOP", 1.0}, {"FLOPs", 1.0}});
}

FlopRate parse_flop_rate(std::string_view s) {
  return parse_with<FlopRate>(s, "FLOP rate", "\"989TFLOP/s\"", {{"FLOP/s", 1.0}, {"FLOPS", 1.0}});
}

Watts parse_watts(std::string_view s) {
  return parse_with<Watts>(s, "power", "\"700W\" or \"10.2kW\"", {{"W", 1.0}}, true);
}

Joules parse_joules(std::string_view s) {
  return parse_with<Joules>(s, "energy", "\"3.6MJ\" or \"1.2MWh\"", {{"J", 1.0}, {"Wh", 3600.0}}, true);
}

Dollars parse_dollars(std::string_view s) {
  return parse_with<Dollars>(s, "price", "\"36000USD\" or \"1.2MUSD\"", {{"USD", 1.0}});
}

DollarRate parse_dollar_rate(std::string_view s) {
  return parse_with<DollarRate>(s, "hourly price", "\"2.99USD/h\"", {{"USD/h", 1.0}, {"USD/hour", 1.0}});
}

std::string to_string(Time t) {
  const double s = t.seconds();
  const double a = std::fabs(s);
  char buf[64];
  if (a == 0.0) return "0 s";
  if (a < 1e-6) std::snprintf(buf, sizeof buf, "%.4g ns", s * 1e9);
  else if (a < 1e-3) std::snprintf(buf, sizeof buf, "%.4g us", s * 1e6);
  else if (a < 1.0) std::snprintf(buf, sizeof buf, "%.4g ms", s * 1e3);
  else if (a < 3600.0 * 2) std::snprintf(buf, sizeof buf, "%.4g s", s);
  else if (a < 86400.0 * 2) std::snprintf(buf, sizeof buf, "%.4g h", s / 3600.0);
  else std::snprintf(buf, sizeof buf, "%.4g days", s / 86400.0);
  return buf;
}

std::ostream& operator<<(std::ostream& os, Time t) {
  return os << to_string(t) << " (" << t.count_ns() << " ns)";
}

std::string to_string(Bytes b) { return format_scaled(b.value(), "B", true); }
std::string to_string(Bandwidth b) { return format_scaled(b.value(), "B/s"); }
std::string to_string(Flops f) { return format_scaled(f.value(), "FLOP"); }
std::string to_string(FlopRate r) { return format_scaled(r.value(), "FLOP/s"); }
std::string to_string(Watts w) { return format_scaled(w.value(), "W"); }
std::string to_string(Joules e) { return format_scaled(e.value() / 3600.0, "Wh"); }
std::string to_string(Dollars d) { return format_scaled(d.value(), "USD"); }
std::string to_string(DollarRate r) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g USD/h", r.value());
  return buf;
}

}  // namespace cs
