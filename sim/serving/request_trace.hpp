// A request trace: one request per CSV row, its arrival time and its prompt and output lengths in tokens.
//
// Two layouts are read, told apart by the header:
//   arrival_s,prompt_tokens,output_tokens          seconds from the start of the run
//   TIMESTAMP,ContextTokens,GeneratedTokens        the Azure LLM inference traces (2023 and 2024, Azure/
//                                                  AzurePublicDataset): a wall-clock "YYYY-MM-DD HH:MM:SS.fffffff"
//                                                  whose first row is time zero; ContextTokens is the prompt,
//                                                  GeneratedTokens the output
// Other columns are ignored, and columns may come in any order. Arrival times must not go backwards, prompts
// must be positive and outputs at least one token; a bad row fails naming the file, line and column.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/units.hpp"

namespace cs {

struct TraceRequest {
  Time arrival;
  std::int64_t prompt = 0;
  std::int64_t output = 0;
};

/// Reads the trace at `path`. Throws InputError("file:line:column: serving.load.trace: ...") for a missing file,
/// an unknown header, a missing cell, a value that is not a number or a date, a negative or zero length, or an
/// arrival earlier than the row before.
[[nodiscard]] std::vector<TraceRequest> load_request_trace(const std::string& path);
/// The same from text, `name` standing for the file in messages.
[[nodiscard]] std::vector<TraceRequest> parse_request_trace(const std::string& text, const std::string& name);

}  // namespace cs
