// The command-line contract: 0 success, 2 bad input (scenario, files, arguments), 1 internal failure.
#pragma once

namespace cs::cli {
inline constexpr int kOk = 0;
inline constexpr int kInternalError = 1;
inline constexpr int kBadInput = 2;
}  // namespace cs::cli
