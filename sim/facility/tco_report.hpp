// Writers for the facility results: JSON sections for `clustersim run` (power, reliability, tco), a short text
// summary, and the full breakdown of `clustersim tco` as a table or CSV. Every number carries its unit and
// every price its price-book entry, source and date.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/facility/tco_model.hpp"

namespace cs {

[[nodiscard]] nlohmann::ordered_json power_json(const PowerReport& p);
[[nodiscard]] nlohmann::ordered_json reliability_json(const ReliabilityReport& r);
/// Bill of materials, yearly costs, unit costs and the cloud comparison (power and reliability are separate).
[[nodiscard]] nlohmann::ordered_json tco_json(const TcoReport& t);

/// One row of the full breakdown. `quantity` is set for bill-of-materials lines only.
struct TcoRow {
  std::string section;
  std::string item;
  std::optional<double> quantity;
  std::string quantity_unit;
  double value = 0.0;
  std::string unit;
  std::string source;
};

[[nodiscard]] std::vector<TcoRow> tco_rows(const TcoReport& t);
/// The rows as an aligned text table, one block per section, then the warnings.
[[nodiscard]] std::string tco_table(const TcoReport& t);
/// The rows as RFC 4180 CSV with a header line: section,item,quantity,quantity_unit,value,unit,source.
[[nodiscard]] std::string tco_csv(const TcoReport& t);
/// A dozen lines for the end of `clustersim run`: IT and facility power, goodput, TCO, owned vs cloud.
[[nodiscard]] std::string tco_summary(const TcoReport& t);

}  // namespace cs
