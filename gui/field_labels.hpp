// How a sweep's fields read on a plot: words and a unit for each result field and sweep key ("time to train
// (days)", "GPUs", "step time (s)", "TCO per year ($M)", "MFU (%)"), the divisor that goes with the unit, and one
// value in human units for a tooltip ("7.4 days", "1,024", "$39.2 M"). A field outside the table reads as its
// dotted key with the unit its suffix names (`_s`, `_usd`, `_usd_per_year`, `_w`, `_j`, `_bytes`: the suffixes
// docs/sweeps.md names fields by): "reliability.checkpoint_write (s)".
#pragma once

#include <QString>

#include <string>

namespace cs::gui {

/// What kind of number a field holds: it picks the unit an axis shows it in and how a value is written.
enum class Quantity {
  count,           ///< GPUs, racks, sequences, tokens
  duration,        ///< seconds
  money,           ///< US dollars
  money_per_year,  ///< US dollars per year
  power,           ///< watts
  energy,          ///< joules
  bytes,
  fraction,        ///< 0..1, shown as a percentage
  rate,            ///< `noun` per second
  plain,           ///< a number in the fixed unit `noun` (TFLOP/s), or none (PUE)
  text,            ///< a sweep axis of names (GPU type, topology)
};

struct FieldLabel {
  QString words;     ///< "time to train", "GPUs", "GPU type"
  Quantity quantity = Quantity::plain;
  QString noun;      ///< what a count or a rate counts ("tokens"), or a plain number's unit ("TFLOP/s")
};

/// The words and the quantity of `field` (a dotted result path or sweep key).
[[nodiscard]] FieldLabel field_label(const std::string& field);

/// An axis shows a value divided by `divisor`, in `unit` ("days", "$M", "MW", "%"; empty for a bare count).
struct AxisUnit {
  double divisor = 1;
  QString unit;
};
/// The unit that keeps the labels of values up to `largest` (in magnitude) short.
[[nodiscard]] AxisUnit axis_unit(const FieldLabel& label, double largest);
/// "time to train (days)", "GPUs", "MFU (%)", "power.node_peak (kW)": the words, and the unit in parentheses.
[[nodiscard]] QString axis_title(const FieldLabel& label, const AxisUnit& unit);
/// `value` of `field` in human units: "7.4 days", "1,024", "$39.2 M", "41.2 %", "1.24 MW".
[[nodiscard]] QString format_field(const std::string& field, double value);
/// The words of a field the table knows, the key otherwise: how the plot's field pickers list it.
[[nodiscard]] QString field_choice_text(const std::string& field);

}  // namespace cs::gui
