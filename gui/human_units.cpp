#include "gui/human_units.hpp"

#include <QLocale>

#include <array>
#include <cmath>

namespace cs::gui {
namespace {

/// Three significant digits, without trailing exponent notation ("39.2", "512", "1.37").
QString three_digits(double v) {
  const double a = std::fabs(v);
  const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : 2;
  return QString::number(v, 'f', decimals);
}

}  // namespace

QString format_si(double value, const QString& unit) {
  static constexpr std::array<const char*, 6> prefixes{"", "k", "M", "G", "T", "P"};
  if (!std::isfinite(value)) return QStringLiteral("-");
  std::size_t i = 0;
  double v = value;
  // 999.5 would print as "1000" with three digits: step up a prefix there.
  while (std::fabs(v) >= 999.5 && i + 1 < prefixes.size()) {
    v /= 1000.0;
    ++i;
  }
  const QString sep = unit.isEmpty() && i == 0 ? QString() : QStringLiteral(" ");
  return three_digits(v) + sep + QString::fromLatin1(prefixes[i]) + unit;
}

QString format_dollars(double usd) {
  if (!std::isfinite(usd)) return QStringLiteral("-");
  const QString sign = usd < 0 ? QStringLiteral("-") : QString();
  const double a = std::fabs(usd);
  if (a < 999.5) return sign + "$" + three_digits(a);
  return sign + "$" + format_si(a, QString());
}

QString format_dollars_per_year(double usd_per_year) {
  return std::isfinite(usd_per_year) ? format_dollars(usd_per_year) + "/yr" : QStringLiteral("-");
}

QString format_watts(double watts) { return format_si(watts, QStringLiteral("W")); }

QString format_duration(double s) {
  if (!std::isfinite(s)) return QStringLiteral("-");
  const double a = std::fabs(s);
  if (a >= 2 * 86400.0) return QString::number(s / 86400.0, 'f', s / 86400.0 >= 100 ? 0 : 1) + " days";
  if (a >= 2 * 3600.0) return QString::number(s / 3600.0, 'f', 1) + " h";
  if (a >= 120.0) return QString::number(s / 60.0, 'f', 1) + " min";
  if (a >= 1.0) return three_digits(s) + " s";
  if (a >= 1e-3) return three_digits(s * 1e3) + " ms";
  return three_digits(s * 1e6) + " us";
}

QString format_bytes(double bytes) { return format_si(bytes, QStringLiteral("B")); }

QString format_rate(double per_second, const QString& what) { return format_si(per_second, what + "/s"); }

QString format_percent(double fraction) {
  return std::isfinite(fraction) ? QString::number(100.0 * fraction, 'f', 1) + " %" : QStringLiteral("-");
}

QString format_count(double n) {
  return std::isfinite(n) ? QLocale(QLocale::English).toString(static_cast<qlonglong>(std::llround(n)))
                          : QStringLiteral("-");
}

QString format_delta(double value, double baseline) {
  if (baseline == 0 || !std::isfinite(value) || !std::isfinite(baseline)) return QString();
  const double change = 100.0 * (value - baseline) / std::fabs(baseline);
  if (std::fabs(change) < 0.05) return QStringLiteral("±0 %");
  return (change > 0 ? QStringLiteral("+") : QString()) + QString::number(change, 'f', 1) + " %";
}

}  // namespace cs::gui
