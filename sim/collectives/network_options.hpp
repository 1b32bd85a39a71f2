// The scenario's `network:` section and the factory that turns it into a CollectiveModel. Every key is
// documented in docs/network.md.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "sim/collectives/analytic_collectives.hpp"
#include "sim/collectives/calibration.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/core/event_engine.hpp"
#include "sim/input/input_node.hpp"
#include "sim/topology/topology.hpp"

namespace cs {

enum class NetworkBackend { flow, analytic };
[[nodiscard]] std::string_view to_string(NetworkBackend b) noexcept;

struct NetworkOptions {
  NetworkBackend backend = NetworkBackend::flow;
  /// Per-kind algorithm overrides; kinds not listed use the NCCL-like tuner.
  std::map<CollectiveKind, CollectiveAlgorithm> algorithm;
  /// "datasheet" (NCCL tuning constants), "ideal" (no overheads) or a path to a calibration CSV.
  std::string calibration = "datasheet";
  Bytes pipeline_threshold{4.0 * 1024 * 1024};
  int top_links = 10;
};

/// Reads a scenario's `network:` mapping; unknown keys, unknown algorithms and bad units are InputErrors.
[[nodiscard]] NetworkOptions parse_network_options(const InputNode& section);

/// The calibration `options` names: datasheet defaults, ideal, or the CSV file.
[[nodiscard]] CollectiveCalibration collective_calibration(const NetworkOptions& options);

/// The contention-free estimator for the short collectives inside a unit (TP, CP, EP), with the same
/// calibration and algorithm overrides as the scenario's fabric model.
[[nodiscard]] std::unique_ptr<AnalyticCollectives> make_collective_estimator(EventEngine& engine,
                                                                             const Topology& topology,
                                                                             const NetworkOptions& options);

/// The flow-level model (default) or the analytic one, with the calibration and overrides of `options`.
/// `topology` and `engine` must outlive the model.
[[nodiscard]] std::unique_ptr<CollectiveModel> make_collective_model(EventEngine& engine, const Topology& topology,
                                                                     const NetworkOptions& options);

}  // namespace cs
