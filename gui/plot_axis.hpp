// A numeric plot axis chosen from the values it shows. Positive values that span more than 1.5 decades (GPU
// counts 8..16,384) get a log axis labelled with plain numbers: base 2 where that makes ten labels or fewer
// (8, 16, ..., 2048; 0.5, 1, 2, 4, 8, 16 days), else base 8 for powers of two (8, 64, 512, 4096) and base 10 for
// the rest. Otherwise a linear axis with nice
// numbers (steps of 1, 2 or 5 times a power of ten), padded by a share of the span, whose lower end never goes
// below zero when no value does: a count, a duration or a cost cannot be negative, so its axis is not either.
#pragma once

#include <QString>

#include <vector>

class QAbstractAxis;

namespace cs::gui {

struct AxisRange {
  bool log = false;
  double base = 10;        ///< log axes only
  double min = 0;
  double max = 1;
  int ticks = 2;           ///< linear axes: labelled ticks from min to max, one step apart
  QString label_format;    ///< printf-style, never exponent notation for the values it labels
};

/// The axis for `values` (already in the axis's unit). `pad` is the share of the span added on each side of a
/// linear axis (clamped at zero below); `whole_numbers` keeps a linear axis's step at 1 or more (counts).
[[nodiscard]] AxisRange choose_axis_range(const std::vector<double>& values, double pad = 0.05,
                                          bool whole_numbers = false);

/// A QValueAxis or QLogValueAxis for `range`, titled `title`; the caller adds it to a chart.
[[nodiscard]] QAbstractAxis* make_axis(const AxisRange& range, const QString& title);
/// Sets the range, ticks and label format of an axis make_axis made for `range`. Attaching a series resizes an
/// axis to the series' data, so call this after the series are attached.
void apply_axis_range(QAbstractAxis* axis, const AxisRange& range);

}  // namespace cs::gui
