#include "gui/plot_axis.hpp"

#include <QLogValueAxis>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace cs::gui {
namespace {

/// Positive values whose largest is more than 10^1.5 times the smallest go on a log axis.
constexpr double kLogAxisSpan = 31.6227766;
/// A base-2 log axis labels every power of two; past this many, every third (base 8) or every power of ten.
constexpr double kMostPowersOfTwo = 10;
/// A linear axis aims at about this many steps between its ends.
constexpr double kLinearSteps = 5;

bool is_power_of_two(double v) {
  if (v < 1) return false;
  const double e = std::log2(v);
  return std::fabs(e - std::round(e)) < 1e-9;
}

/// The smallest of 1, 2 and 5 times a power of ten that is at least `raw` (> 0).
double nice_step(double raw) {
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0}) {
    if (m * p >= raw * (1 - 1e-12)) return m * p;
  }
  return 10 * p;
}

}  // namespace

AxisRange choose_axis_range(const std::vector<double>& values, double pad, bool whole_numbers) {
  AxisRange r;
  if (values.empty()) {
    r.label_format = "%.0f";
    return r;
  }
  const auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
  const double lo = *lo_it, hi = *hi_it;
  if (lo > 0 && hi / lo > kLogAxisSpan) {
    r.log = true;
    // Every power of two when that is few enough labels; else every third for powers of two (GPU counts), and
    // powers of ten for the rest.
    const bool powers_of_two = std::all_of(values.begin(), values.end(), is_power_of_two);
    r.base = std::log2(hi / lo) + 1 <= kMostPowersOfTwo ? 2 : powers_of_two ? 8 : 10;
    // 5 % of the log span on each side keeps the end markers inside the plot; a power of the base at an end of
    // the data stays a labelled tick.
    const double f = std::pow(hi / lo, 0.05);
    r.min = lo / f;
    r.max = hi * f;
    r.label_format = r.min >= 1 ? "%.0f" : "%g";
    return r;
  }
  double a = lo, b = hi;
  if (hi > lo) {
    a -= pad * (hi - lo);
    b += pad * (hi - lo);
  } else {
    const double d = lo != 0 ? std::fabs(lo) * 0.1 : 1.0;
    a -= d;
    b += d;
  }
  if (lo >= 0 && a < 0) a = 0;
  double step = nice_step((b - a) / kLinearSteps);
  if (whole_numbers) step = std::max(step, 1.0);
  r.min = std::floor(a / step) * step;
  r.max = std::ceil(b / step) * step;
  if (r.min == 0) r.min = 0.0;  // never -0 ("-0" as a label)
  r.ticks = static_cast<int>(std::lround((r.max - r.min) / step)) + 1;
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  r.label_format = QStringLiteral("%.%1f").arg(decimals);
  return r;
}

QAbstractAxis* make_axis(const AxisRange& range, const QString& title) {
  QAbstractAxis* axis = nullptr;
  if (range.log) axis = new QLogValueAxis;
  else axis = new QValueAxis;
  axis->setTitleText(title);
  apply_axis_range(axis, range);
  return axis;
}

void apply_axis_range(QAbstractAxis* axis, const AxisRange& range) {
  if (auto* log = qobject_cast<QLogValueAxis*>(axis)) {
    log->setBase(range.base);
    log->setRange(range.min, range.max);
    log->setLabelFormat(range.label_format);
    log->setMinorTickCount(range.base == 10 ? 8 : 0);
  } else if (auto* linear = qobject_cast<QValueAxis*>(axis)) {
    linear->setRange(range.min, range.max);
    linear->setTickCount(range.ticks);
    linear->setLabelFormat(range.label_format);
  }
}

}  // namespace cs::gui
