// Writing a residual file: the step-time residuals (measured / predicted) of predicted validation rows, in the
// columns sim/scenario/band_basis reads back as the basis of every run's error band.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "sim/validation/validation.hpp"

namespace cs {

/// Writes the predicted rows of `rows` (skipped ones are left out) as a residual CSV, with `comment` lines
/// (written as "# ...") ahead of the header.
void write_residuals(std::ostream& out, const std::vector<ValidationRow>& rows, const std::vector<std::string>& comment);

}  // namespace cs
