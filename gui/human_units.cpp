#include "gui/human_units.hpp"

#include <QLocale>

#include "sim/core/human_units.hpp"

#include <cmath>

namespace cs::gui {
namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

// One implementation for the CLI and the planner: sim/core/human_units.
QString format_si(double value, const QString& unit) { return q(cs::format_si(value, unit.toStdString())); }
QString format_dollars(double usd) { return q(cs::format_dollars(usd)); }
QString format_dollars_per_year(double usd_per_year) { return q(cs::format_dollars_per_year(usd_per_year)); }
QString format_watts(double watts) { return q(cs::format_watts(watts)); }
QString format_duration(double s) { return q(cs::format_duration(s)); }
QString format_bytes(double bytes) { return q(cs::format_bytes(bytes)); }
QString format_rate(double per_second, const QString& what) { return format_si(per_second, what + "/s"); }

QString format_percent(double fraction) {
  return std::isfinite(fraction) ? QString::number(100.0 * fraction, 'f', 1) + " %" : QStringLiteral("-");
}

QString format_count(double n) {
  return std::isfinite(n) ? QLocale(QLocale::English).toString(static_cast<qlonglong>(std::llround(n)))
                          : QStringLiteral("-");
}

QString format_delta(double value, double baseline) { return q(cs::format_delta(value, baseline)); }

}  // namespace cs::gui
