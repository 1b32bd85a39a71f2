// What a topology file describes: one node's insides (GPUs, scale-up fabric, PCIe tree, NICs, other PCIe
// devices) and the fabric between nodes, as plain values. The loader (topology_loader.cpp) fills these from
// YAML; the builders (node_builder.cpp, fabric_builder.cpp) turn them into the cluster graph.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/units.hpp"

namespace cs {

/// A point-to-point connection: raw bandwidth in each direction, one-way latency, and the fraction of the
/// raw bandwidth that carries payload (line encoding and packet headers; 1 = ideal).
struct LinkSpec {
  Bandwidth bandwidth;
  Time latency;
  double efficiency = 1.0;
  /// Payload bandwidth per direction: bandwidth x efficiency.
  [[nodiscard]] Bandwidth effective() const noexcept { return bandwidth * efficiency; }
};

enum class ScaleUpKind { none, nvswitch };

/// The GPUs' scale-up domain: every GPU has one aggregate link of `link` to a non-blocking NVSwitch plane.
struct ScaleUpSpec {
  ScaleUpKind kind = ScaleUpKind::none;
  std::string generation;  ///< "NVLink4"
  LinkSpec link;           ///< per GPU, per direction (all its NVLinks together)
  Time switch_latency;     ///< one NVSwitch traversal
  bool nvls = false;       ///< NVLink SHARP: in-switch reduction and multicast (NVSwitch gen 3, Hopper on)
};

enum class PcieAttach { gpu_switch, cpu };

/// The PCIe tree: GPUs spread evenly over `switches` PCIe switches, which hang off `root_complexes` CPU root
/// complexes; root complexes talk over the CPU interconnect (UPI / xGMI).
struct PcieSpec {
  std::string generation;    ///< "Gen5 x16"
  LinkSpec gpu_link;         ///< GPU (or NIC, device) to its PCIe switch, per direction
  int switches = 0;          ///< 0: every GPU sits directly on CPU lanes
  LinkSpec switch_uplink;    ///< PCIe switch to its root complex
  Time switch_latency;
  int root_complexes = 1;
  LinkSpec cpu_link;         ///< between root complexes
};

/// NICs of the scale-out fabric. NIC i serves rail `rails[i]` and sits on the PCIe switch of GPU
/// i * gpus / count (attach gpu_switch) or on CPU lanes (attach cpu).
struct NicSpec {
  int count = 0;
  std::string model;  ///< "ConnectX-7 NDR"
  LinkSpec link;      ///< port bandwidth per direction; latency is the NIC's own
  LinkSpec host_link; ///< its PCIe connection
  PcieAttach attach = PcieAttach::gpu_switch;
  std::vector<int> rails;
};

/// Other PCIe devices that share uplinks with GPUs (NVMe drives, storage NICs).
struct DeviceSpec {
  std::string kind;  ///< "nvme", "storage_nic"
  int count = 0;
  LinkSpec link;
  PcieAttach attach = PcieAttach::gpu_switch;
};

struct NodeSpec {
  std::string name;     ///< e.g. "DGX H100"
  int gpus = 8;
  LinkSpec gpu_link;    ///< each GPU's scale-up link (NVLink to NVSwitch, or PCIe), per direction
  int nics = 8;         ///< scale-out NICs per node, one per rail
  LinkSpec nic;         ///< each NIC, per direction
  // The full description (format_version 2).
  std::string gpu_model;
  ScaleUpSpec scale_up;
  PcieSpec pcie;
  NicSpec nic_spec;
  std::vector<DeviceSpec> devices;
  /// How fast the node's host CPU issues PyTorch work: its time for one torch.nn.Linear forward (bf16, hidden
  /// 2,048, 8,192 tokens), the yardstick Transformer Engine issue #2053 published for three hosts. Zero: not
  /// known, priced as this project's calibration hosts (FrameworkHostCosts::calibration_host_linear_forward).
  Time host_linear_forward = Time::zero();
};

enum class FabricKind { none, single_switch, rail_optimized, fat_tree, rail_only, torus, hypercube, dragonfly, ocs };

[[nodiscard]] std::string_view to_string(FabricKind k) noexcept;

struct SwitchSpec {
  std::string model;  ///< "QM9700"
  int radix = 64;     ///< ports at the fabric's link speed
  Time latency;       ///< port to port
};

/// The fabric between nodes.
struct FabricSpec {
  FabricKind kind = FabricKind::none;
  std::string technology;            ///< "InfiniBand NDR", "RoCE (Spectrum-X)"
  LinkSpec link;                     ///< one switch port / cable, per direction; latency = cable propagation
  SwitchSpec leaf, spine, core;      ///< spine and core default to leaf
  int nodes_per_unit = 32;           ///< rail_optimized / rail_only: nodes per scalable unit (one leaf per rail)
  std::vector<double> oversubscription{1.0, 1.0};  ///< down:up ports per tier (leaf, spine)
  std::vector<bool> optical{true, true, true};     ///< cable medium per tier (node-leaf, leaf-spine, spine-core)
  int node_ports_per_transceiver = 2;    ///< twin-port OSFP on the node side (DGX H100: 8 NICs, 4 OSFP)
  int switch_ports_per_transceiver = 2;  ///< twin-port OSFP cages (QM9700: 32 cages, 64 ports)
  std::vector<int> torus_dims;           ///< torus: nodes per dimension (product = nodes); empty: derived
  bool sharp = false;                    ///< in-network reduction (InfiniBand SHARP) in the switches
  /// dragonfly: routers per group (a); 0: derived from the radix, a = radix / 2 (Kim et al. 2008's balance)
  int dragonfly_group_routers = 0;
  /// ocs: circuit strides: NIC pair 2i, 2i+1 of node k holds circuits to nodes k + s_i and k - s_i (mod nodes),
  /// set per job from its traffic matrix; empty: {1}
  std::vector<int> ocs_shifts;
  /// ocs: circuits as node pairs (a node pair listed n times has n circuits), set per job from its traffic matrix
  /// by `clustersim design`; when given, they replace ocs_shifts. Not a topology-file key.
  std::vector<std::pair<int, int>> ocs_circuits;
  /// ocs: the optical circuit switch every NIC fibre lands on (model, ports); its latency is zero (no O/E/O)
  SwitchSpec ocs{"Palomar OCS", 136, Time::zero()};
  /// ocs: time to set the circuits for a job, paid once at its start (estimate: a 3-D MEMS OCS such as Google's
  /// Palomar switches in milliseconds, Mission Apollo, arXiv 2208.10041; TopoOpt's patch panel takes minutes)
  Time ocs_reconfiguration = Time::from_seconds(0.01);
  /// fat_tree / rail_optimized: 3 builds a core tier (pods of half a spine's down ports) even where two tiers
  /// would reach every leaf, as a build planned to grow does; 0: the fewest tiers that fit
  int tiers = 0;
  /// Where the job's nodes sit in the fabric, in rank order: node k plugs into fabric position node_slots[k]
  /// (leaf ports, torus router, ...). Positions may skip some (nodes down, a scheduler's fragment): the fabric is
  /// built for max + 1 positions. Empty: node k at position k. Not used by ocs (circuits follow the job).
  std::vector<int> node_slots;
};

}  // namespace cs
