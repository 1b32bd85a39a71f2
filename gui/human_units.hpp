// Numbers as a planner reads them: three significant digits and a unit that fits ("$39.2 M", "1.37 MW",
// "7.4 days", "61.5 GB"), and the change from a baseline ("+12.3 %").
#pragma once

#include <QString>

namespace cs::gui {

[[nodiscard]] QString format_dollars(double usd);        ///< "$39.2 M", "$512 k", "$2.15"
[[nodiscard]] QString format_dollars_per_year(double usd_per_year);  ///< "$8.10 M/yr"
[[nodiscard]] QString format_watts(double watts);        ///< "1.37 MW", "712 W"
[[nodiscard]] QString format_duration(double seconds);   ///< "7.4 days", "5.2 h", "1.23 s", "450 ms"
[[nodiscard]] QString format_bytes(double bytes);        ///< "61.5 GB" (decimal, as GPU datasheets count)
[[nodiscard]] QString format_rate(double per_second, const QString& what);  ///< "1.23 M tokens/s"
[[nodiscard]] QString format_percent(double fraction);   ///< 0.4123 -> "41.2 %"
[[nodiscard]] QString format_count(double n);            ///< "1,024"
/// The relative change from `baseline` to `value` ("+12.3 %", "-4.1 %", "±0 %"); empty when the baseline is 0.
[[nodiscard]] QString format_delta(double value, double baseline);

/// `value` with three significant digits and an SI prefix (k, M, G, T, P) before `unit`.
[[nodiscard]] QString format_si(double value, const QString& unit);

}  // namespace cs::gui
