// What `clustersim run` prints and writes for an inference service (a scenario with `serving:`): latency
// percentiles, throughput, goodput under the SLO, the KV cache, and the cost per million tokens from the TCO of
// the simulated window. JSON in SI numbers; the summary in human units.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/scenario/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs {

/// The cost of tokens served: the owned cluster's cost of the simulated window over the tokens it served.
struct ServiceCost {
  double window_usd = 0;                    ///< the window on the owned cluster (TcoReport::run_cost)
  double usd_per_million_tokens = 0;        ///< prompt and output tokens together
  double usd_per_million_output_tokens = 0;  ///< all of it charged to the output tokens
  /// Priced separately, as providers quote them: the window's cost split by the GPU time of iterations that hold
  /// a prompt chunk (input) and of decode-only iterations (output), idle time pro rata. A chunked-prefill
  /// iteration that mixes both counts as input.
  double usd_per_million_input_tokens_split = 0;
  double usd_per_million_output_tokens_split = 0;
  double owned_usd_per_gpu_hour = 0;
};
/// Nullopt without a TCO report or without tokens served.
[[nodiscard]] std::optional<ServiceCost> service_cost(const RunResult& r);

[[nodiscard]] nlohmann::ordered_json service_json(const Scenario& sc, const RunResult& r);
[[nodiscard]] std::string service_summary(const Scenario& sc, const RunResult& r);

}  // namespace cs
