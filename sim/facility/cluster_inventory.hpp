// What a cluster is made of, as counts of priced parts: the input of the bill of materials and the power
// model. The topology layer fills it from its fabric builder; this layer never builds a topology itself.
// Every part names its price-book entry, which also carries its power draw.
#pragma once

#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/facility/price_book.hpp"

namespace cs {

/// The GPU server model: its price-book entry carries the system price and its maximum power (for a DGX H100,
/// 10.2 kW including the GPUs, NICs and the node-side transceivers).
struct NodeKind {
  PriceRef price;         ///< e.g. "dgx-h100"
  int gpus_per_node = 8;
  int rack_units = 8;     ///< height in the rack (DGX H100: 8U)
  int nics_per_node = 8;  ///< compute-fabric NICs (DGX H100: 8 ConnectX-7)
  /// Price-book entry of one NIC when the node price excludes them; empty when the node price includes them.
  std::string nic_price_id;
};

/// One tier of switches of one fabric, e.g. compute/leaf: 32 x QM9700.
struct SwitchGroup {
  std::string fabric;  ///< "compute", "storage", "in-band", "out-of-band"
  std::string tier;    ///< "leaf", "spine", "core", "tor"
  PriceRef model;      ///< price-book entry of the switch (price and power)
  int count = 0;
  int rack_units = 1;
};

enum class CableMedium { copper, optical };

/// Cables of one kind between two tiers, e.g. compute node-leaf: 1,020 optical cables.
struct CableGroup {
  std::string fabric;
  std::string span;  ///< "node-leaf", "leaf-spine", ...
  CableMedium medium = CableMedium::optical;
  PriceRef model;
  int count = 0;
};

/// Pluggable transceivers. Those in a node draw from the node's power budget (the node's maximum already counts
/// them); those in a switch add to the fabric power.
struct TransceiverGroup {
  std::string fabric;
  std::string span;  ///< the cables they terminate: "node-leaf", "leaf-spine", ...
  bool in_node = false;
  PriceRef model;  ///< price and power of one module
  int count = 0;
};

/// Anything else bought by the unit: UFM appliances, management servers, PDUs. Its power counts when its
/// price-book entry has one.
struct OtherPart {
  std::string category;  ///< "management", "storage", "facility"
  PriceRef model;
  int count = 0;
  int rack_units = 0;
};

struct ClusterInventory {
  std::string name;  ///< e.g. "DGX SuperPOD H100, 4 SU"
  int node_count = 0;
  NodeKind node;
  std::vector<SwitchGroup> switches;
  std::vector<CableGroup> cables;
  std::vector<TransceiverGroup> transceivers;
  std::vector<OtherPart> other;
  Bytes storage_capacity;     ///< shared parallel file system (checkpoints, data)
  PriceRef storage_price;     ///< price per TB of that storage

  [[nodiscard]] int gpu_count() const noexcept { return node_count * node.gpus_per_node; }
};

/// Throws InputError when counts are negative or inconsistent (no nodes, zero GPUs per node).
void validate(const ClusterInventory& inventory);

}  // namespace cs
