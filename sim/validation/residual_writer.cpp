#include "sim/validation/residual_writer.hpp"

#include <fmt/format.h>

#include <ostream>

#include "sim/scenario/band_basis.hpp"

namespace cs {

void write_residuals(std::ostream& out, const std::vector<ValidationRow>& rows, const std::vector<std::string>& comment) {
  for (const std::string& c : comment) out << "# " << c << "\n";
  std::string header;
  for (const auto& c : residual_columns()) header += (header.empty() ? "" : ",") + c;
  out << header << "\n";
  for (const ValidationRow& v : rows) {
    if (v.skipped || v.predicted <= 0 || v.measured <= 0) continue;
    // Shortest round-trip text of every number: reading the file back gives the same doubles.
    out << fmt::format("{},{},{},{},{},{},{},{},{},{}\n", csv_cell(v.id), csv_cell(v.source), v.quantity, v.measured,
                       v.predicted, v.time_ratio(), v.fp8 ? 1 : 0, v.moe ? 1 : 0, v.gpus, v.calibration_p90);
  }
}

}  // namespace cs
