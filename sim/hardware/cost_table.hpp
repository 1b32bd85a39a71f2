// Kernel costs for a list of shapes: reads CSV rows `op,dtype,m,n,k` (op "gemm"; dtype fp32, tf32, bf16,
// fp16 or fp8) and writes them back with a `predicted_s` column, preceded by one `# profile:` comment line
// that names the profile and whether its numbers are measured or datasheet-derived.
#pragma once

#include <iosfwd>
#include <string>

#include "sim/hardware/compute_cost_model.hpp"

namespace cs {

/// Throws InputError (`name`:line:column) for a wrong header, an unknown op or dtype, or a size that is not
/// a positive integer. Nothing is written before the whole input has been checked.
void write_cost_csv(std::istream& in, const std::string& name, std::ostream& out, const ComputeCostModel& model);

}  // namespace cs
