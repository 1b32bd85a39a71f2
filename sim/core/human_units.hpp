// Numbers as a person reads them: three significant digits and a unit that fits ("$39.2 M", "1.24 MW",
// "7.4 days", "61.5 GB"). The CLI's summaries and the planner print through these; JSON stays in SI numbers.
#pragma once

#include <string>

namespace cs {

/// `value` with three significant digits and an SI prefix (k, M, G, T, P) before `unit` ("1.24 MW").
[[nodiscard]] std::string format_si(double value, const std::string& unit);
[[nodiscard]] std::string format_dollars(double usd);                 ///< "$39.2 M", "$512 k", "$2.15"
[[nodiscard]] std::string format_dollars_per_year(double usd_per_year);  ///< "$8.10 M/yr"
[[nodiscard]] std::string format_watts(double watts);                 ///< "1.24 MW", "712 W"
[[nodiscard]] std::string format_energy(double joules);               ///< "8.64 GWh" (in watt-hours)
[[nodiscard]] std::string format_duration(double seconds);            ///< "7.4 days", "5.2 h", "1.23 s", "450 ms"
[[nodiscard]] std::string format_bytes(double bytes);                 ///< "61.5 GB" (decimal, as datasheets count)
/// The relative change from `baseline` to `value` ("+12.3 %", "-4.1 %", "±0 %"); empty when the baseline is 0.
[[nodiscard]] std::string format_delta(double value, double baseline);

}  // namespace cs
