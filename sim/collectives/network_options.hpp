// The scenario's `network:` section, the factory that turns it into a CollectiveModel, and the `network`
// section of the JSON result. Every key is documented in docs/network.md.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

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

/// The flow-level model (default) or the analytic one, with the calibration and overrides of `options`.
/// `topology` and `engine` must outlive the model.
[[nodiscard]] std::unique_ptr<CollectiveModel> make_collective_model(EventEngine& engine, const Topology& topology,
                                                                     const NetworkOptions& options);

/// The `network` section of the result: backend, calibration source, algorithms used, and for the flow model
/// per-link statistics by tier and the busiest links; `elapsed` is the simulated span (for utilisation).
[[nodiscard]] nlohmann::json network_json(const CollectiveModel& model, const NetworkOptions& options, Time elapsed);

/// The builder's part counts as JSON (nodes, GPUs, NICs, switches per tier, cables and transceivers per tier).
[[nodiscard]] nlohmann::json fabric_inventory_json(const FabricInventory& inventory);

}  // namespace cs
