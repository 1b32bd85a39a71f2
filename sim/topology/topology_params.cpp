#include "sim/topology/topology_params.hpp"

namespace cs {

const EnumTable<FabricKind>& fabric_kind_names() {
  static const EnumTable<FabricKind> t{{FabricKind::none, "none"},
                                       {FabricKind::single_switch, "single_switch"},
                                       {FabricKind::rail_optimized, "rail_optimized"},
                                       {FabricKind::fat_tree, "fat_tree"},
                                       {FabricKind::rail_only, "rail_only"},
                                       {FabricKind::torus, "torus"},
                                       {FabricKind::hypercube, "hypercube"},
                                       {FabricKind::dragonfly, "dragonfly"},
                                       {FabricKind::ocs, "ocs"}};
  return t;
}

namespace {

const EnumTable<PcieAttach>& attach_names() {
  static const EnumTable<PcieAttach> t{{PcieAttach::gpu_switch, "gpu_switch"}, {PcieAttach::cpu, "cpu"}};
  return t;
}

ParamTable<LinkSpec> link_params(std::string key, std::string help) {
  ParamTable<LinkSpec> p(std::move(key), std::move(help));
  p.field("bandwidth", &LinkSpec::bandwidth, {.help = "per direction", .positive = true, .required = true});
  p.field("latency", &LinkSpec::latency, {.help = "one traversal", .min = 0.0, .required = true});
  p.field("efficiency", &LinkSpec::efficiency,
          {.help = "share of the raw bandwidth that carries payload (encoding, headers); 1 = ideal", .max = 1.0,
           .positive = true});
  return p;
}

/// The scale-up section as written: links per GPU times the per-link bandwidth make the GPU's link.
struct ScaleUpInput {
  std::string kind = "nvswitch";
  std::string generation;
  int links_per_gpu = 1;
  Bandwidth link_bandwidth;
  Time latency;
  double efficiency = 1.0;
  Time switch_latency;
  bool nvls = false;
};

const ParamTable<ScaleUpInput>& scale_up_params() {
  static const ParamTable<ScaleUpInput> t = [] {
    ParamTable<ScaleUpInput> p("scale_up", "The NVLink / NVSwitch domain inside the node; absent: GPUs talk over PCIe.");
    ParamSpec kind{.key = "kind", .type = ParamType::choice, .help = "scale-up fabric", .required = true,
                   .choices = {"nvswitch"}};
    kind.check = [](const InputNode& n) {
      const std::string k = n.as<std::string>();
      n.require(k == "nvswitch", "unknown scale_up kind \"" + k + "\" (expected nvswitch)");
    };
    p.custom(kind, [check = kind.check](const InputNode& n, ScaleUpInput& s) {
      check(n);
      s.kind = n.as<std::string>();
    });
    p.field("generation", &ScaleUpInput::generation, {.help = "e.g. NVLink4", .required = true});
    p.field("links_per_gpu", &ScaleUpInput::links_per_gpu, {.help = "NVLinks per GPU", .positive = true});
    p.field("link_bandwidth", &ScaleUpInput::link_bandwidth,
            {.help = "one NVLink, per direction", .positive = true, .required = true});
    p.field("latency", &ScaleUpInput::latency, {.help = "GPU to switch", .min = 0.0, .required = true});
    p.field("efficiency", &ScaleUpInput::efficiency, {.help = "payload share of the raw bandwidth", .max = 1.0,
                                                      .positive = true});
    p.field("switch_latency", &ScaleUpInput::switch_latency,
            {.help = "one NVSwitch traversal", .min = 0.0, .required = true});
    p.field("nvls", &ScaleUpInput::nvls, {.help = "NVLink SHARP: in-switch reduction and multicast"});
    return p;
  }();
  return t;
}

const ParamTable<PcieSpec>& pcie_params() {
  static const ParamTable<PcieSpec> t = [] {
    ParamTable<PcieSpec> p("pcie", "The node's PCIe tree.");
    p.field("generation", &PcieSpec::generation, {.help = "e.g. Gen5 x16", .required = true});
    p.section(&PcieSpec::gpu_link, link_params("gpu_link", "a GPU (or NIC, device) to its PCIe switch"), true);
    p.field("switches", &PcieSpec::switches, {.help = "PCIe switches; 0: every GPU sits on CPU lanes", .min = 0});
    p.section(&PcieSpec::switch_uplink, link_params("switch_uplink", "a PCIe switch to its root complex "
                                                                     "(required when switches > 0)"));
    p.field("switch_latency", &PcieSpec::switch_latency,
            {.help = "one PCIe switch traversal (required when switches > 0)", .min = 0.0});
    p.field("root_complexes", &PcieSpec::root_complexes, {.help = "CPU sockets / root complexes", .positive = true});
    p.section(&PcieSpec::cpu_link, link_params("cpu_link", "between root complexes (UPI / xGMI; required when "
                                                           "root_complexes > 1)"));
    p.check([](const InputNode& n, PcieSpec& s) {
      if (s.switches > 0) {
        (void)n.at("switch_uplink");
        (void)n.at("switch_latency");
      }
      if (s.root_complexes > 1) (void)n.at("cpu_link");
    });
    return p;
  }();
  return t;
}

const ParamTable<NicSpec>& nic_params() {
  static const ParamTable<NicSpec> t = [] {
    ParamTable<NicSpec> p("nics", "Scale-out NICs, one per rail.");
    p.field("count", &NicSpec::count, {.help = "NICs per node", .min = 0});
    p.field("model", &NicSpec::model, {.help = "e.g. ConnectX-7 NDR (prices and power come from the price book)",
                                       .default_text = "none"});
    p.section(&NicSpec::link, link_params("link", "the NIC's port, per direction; latency is the NIC's own"), true);
    p.section(&NicSpec::host_link, link_params("host_link", "its PCIe connection (default: pcie.gpu_link)"));
    p.choice("attach", &NicSpec::attach, attach_names(), {.help = "on the GPUs' PCIe switches or on CPU lanes"});
    ParamSpec rails{.key = "rails", .type = ParamType::list, .help = "the rail of each NIC (one per NIC)",
                    .default_text = "NIC i on rail i"};
    rails.check = [](const InputNode& n) {
      for (const auto& e : n.elements()) (void)e.as<int>();
    };
    p.custom(rails, [](const InputNode& n, NicSpec& s) {
      s.rails.clear();
      for (const auto& e : n.elements()) s.rails.push_back(e.as<int>());
    });
    p.check([](const InputNode& n, NicSpec& s) {
      if (n.has("rails")) {
        n.at("rails").require(static_cast<int>(s.rails.size()) == s.count, "needs one rail per NIC");
      }
    });
    return p;
  }();
  return t;
}

const ParamTable<DeviceSpec>& device_params() {
  static const ParamTable<DeviceSpec> t = [] {
    ParamTable<DeviceSpec> p("", "One kind of PCIe device.");
    p.field("kind", &DeviceSpec::kind, {.help = "nvme, storage_nic, ...", .required = true});
    p.field("count", &DeviceSpec::count, {.help = "devices of this kind", .positive = true, .default_text = "1"});
    p.section(&DeviceSpec::link, link_params("link", "its PCIe link"), true);
    p.choice("attach", &DeviceSpec::attach, attach_names(), {.help = "on the GPUs' PCIe switches or on CPU lanes"});
    return p;
  }();
  return t;
}

void read_devices(const InputNode& n, NodeSpec& node) {
  node.devices.clear();
  for (const auto& d : n.elements()) {
    DeviceSpec dev;
    dev.count = 1;
    device_params().read(d, dev);
    node.devices.push_back(dev);
  }
}

const ParamTable<NodeSpec>& node_params() {
  static const ParamTable<NodeSpec> t = [] {
    ParamTable<NodeSpec> p("node", "One server: GPUs, scale-up domain, PCIe tree, NICs and other devices.");
    p.field("name", &NodeSpec::name, {.help = "e.g. DGX H100 (the price book prices it by this name)",
                                      .required = true});
    p.field("gpu", &NodeSpec::gpu_model, {.help = "GPU model", .default_text = "none"});
    p.field("gpus", &NodeSpec::gpus, {.help = "GPUs per node", .positive = true, .required = true});
    p.field("host_linear_forward", &NodeSpec::host_linear_forward,
            {.help = "host time of one torch.nn.Linear forward (bf16, hidden 2,048, 8,192 tokens) on the node's CPU, "
                     "the yardstick of TransformerEngine issue #2053 (DGX H100 13.48us, GB200 37.08us); scales "
                     "every eager host cost against this project's calibration hosts (27.1us)",
             .min = 0.0, .default_text = "the calibration hosts' 27.1us"});
    p.custom_section(scale_up_params().schema(), [](const InputNode& n, NodeSpec& node) {
      ScaleUpInput s;
      scale_up_params().read(n, s);
      node.scale_up.kind = ScaleUpKind::nvswitch;
      node.scale_up.generation = s.generation;
      node.scale_up.link = LinkSpec{s.link_bandwidth * s.links_per_gpu, s.latency, s.efficiency};
      node.scale_up.switch_latency = s.switch_latency;
      node.scale_up.nvls = s.nvls;
    });
    p.section(&NodeSpec::pcie, pcie_params(), true);
    p.custom_section(nic_params().schema(), [](const InputNode& n, NodeSpec& node) {
      node.nic_spec.host_link = node.pcie.gpu_link;  // the documented default (pcie is read first)
      nic_params().read(n, node.nic_spec);
    });
    ParamSpec devices{.key = "devices", .type = ParamType::list,
                      .help = "other PCIe devices: a list of {kind, count, link, attach}", .default_text = "none"};
    devices.check = [](const InputNode& n) {
      NodeSpec scratch;
      read_devices(n, scratch);
    };
    p.custom(devices, read_devices);
    return p;
  }();
  return t;
}

const ParamTable<SwitchSpec> switch_params(std::string key, std::string help) {
  ParamTable<SwitchSpec> p(std::move(key), std::move(help));
  p.field("model", &SwitchSpec::model, {.help = "e.g. QM9700 (priced by this name)", .required = true});
  p.field("radix", &SwitchSpec::radix, {.help = "ports at the fabric's link speed", .min = 2, .required = true});
  p.field("latency", &SwitchSpec::latency, {.help = "port to port", .min = 0.0, .required = true});
  return p;
}

const ParamTable<FabricSpec>& cable_params() {
  static const ParamTable<FabricSpec> t = [] {
    ParamTable<FabricSpec> p("cables", "Cable medium per tier (optical or copper).");
    const char* keys[] = {"node_leaf", "leaf_spine", "spine_core"};
    for (std::size_t i = 0; i < 3; ++i) {
      ParamSpec s{.key = keys[i], .type = ParamType::choice, .help = std::string("medium of the ") + keys[i] +
                                                                      " tier",
                  .default_text = "optical", .choices = {"optical", "copper"}};
      s.check = [](const InputNode& n) {
        const std::string m = n.as<std::string>();
        n.require(m == "optical" || m == "copper", "must be optical or copper, got \"" + m + "\"");
      };
      p.custom(s, [i, check = s.check](const InputNode& n, FabricSpec& f) {
        check(n);
        f.optical[i] = n.as<std::string>() == "optical";
      });
    }
    return p;
  }();
  return t;
}

const ParamTable<FabricSpec>& fabric_params() {
  static const ParamTable<FabricSpec> t = [] {
    ParamTable<FabricSpec> p("fabric", "The scale-out fabric between nodes (docs/topology.md).");
    p.choice("kind", &FabricSpec::kind, fabric_kind_names(), {.help = "fabric shape", .required = true});
    p.field("technology", &FabricSpec::technology,
            {.help = "e.g. InfiniBand NDR, RoCE (Spectrum-X); required unless kind is none", .default_text = "none"});
    p.section(&FabricSpec::link, link_params("link", "one switch port / cable, per direction; latency = cable "
                                                     "propagation (required unless kind is none)"));
    p.section(&FabricSpec::leaf, switch_params("switch", "the leaf switch (required unless kind is none)"));
    p.section(&FabricSpec::spine, switch_params("spine_switch", "the spine switch (default: the leaf's)"));
    p.section(&FabricSpec::core, switch_params("core_switch", "the core switch (default: the spine's)"));
    p.field("nodes_per_unit", &FabricSpec::nodes_per_unit,
            {.help = "rail_optimized / rail_only: nodes per scalable unit (one leaf per rail)", .positive = true});
    ParamSpec over{.key = "oversubscription", .type = ParamType::list,
                   .help = "down:up ports per tier (leaf, spine), each at least 1", .default_text = "[1, 1]"};
    over.check = [](const InputNode& n) {
      for (const auto& e : n.elements()) e.require(e.as<double>() >= 1.0, "oversubscription (down:up) must be at least 1");
    };
    p.custom(over, [check = over.check](const InputNode& n, FabricSpec& f) {
      check(n);
      f.oversubscription.clear();
      for (const auto& e : n.elements()) f.oversubscription.push_back(e.as<double>());
    });
    p.section(cable_params());
    p.field("node_ports_per_transceiver", &FabricSpec::node_ports_per_transceiver,
            {.help = "ports per node-side transceiver (twin-port OSFP: 2)", .positive = true});
    p.field("switch_ports_per_transceiver", &FabricSpec::switch_ports_per_transceiver,
            {.help = "ports per switch cage (QM9700: 2)", .positive = true});
    ParamSpec dims{.key = "torus_dims", .type = ParamType::list,
                   .help = "torus: nodes per dimension (product = nodes)", .default_text = "derived"};
    dims.check = [](const InputNode& n) {
      for (const auto& e : n.elements()) (void)e.as<int>();
    };
    p.custom(dims, [](const InputNode& n, FabricSpec& f) {
      f.torus_dims.clear();
      for (const auto& e : n.elements()) f.torus_dims.push_back(e.as<int>());
    });
    p.field("sharp", &FabricSpec::sharp, {.help = "in-network reduction (InfiniBand SHARP) in the switches"});
    p.field("dragonfly_group_routers", &FabricSpec::dragonfly_group_routers,
            {.help = "dragonfly: routers per group (all-to-all inside it); 0: radix / 2", .min = 0});
    ParamSpec shifts{.key = "ocs_shifts", .type = ParamType::list,
                     .help = "ocs: circuit strides in nodes, one per NIC pair (node k to k +- s)", .default_text = "[1]"};
    shifts.check = [](const InputNode& n) {
      for (const auto& e : n.elements()) e.require(e.as<int>() > 0, "a circuit stride must be positive");
    };
    p.custom(shifts, [](const InputNode& n, FabricSpec& f) {
      f.ocs_shifts.clear();
      for (const auto& e : n.elements()) f.ocs_shifts.push_back(e.as<int>());
    });
    p.field("ocs_reconfiguration", &FabricSpec::ocs_reconfiguration,
            {.help = "ocs: time to set a job's circuits, paid once per job"});
    ParamSpec slots{.key = "node_slots", .type = ParamType::list,
                    .help = "fabric positions of the job's nodes in rank order (nodes down, a scheduler's fragment)",
                    .default_text = "[0, 1, ...]"};
    slots.check = [](const InputNode& n) {
      for (const auto& e : n.elements()) e.require(e.as<int>() >= 0, "a fabric position must not be negative");
    };
    p.custom(slots, [](const InputNode& n, FabricSpec& f) {
      f.node_slots.clear();
      for (const auto& e : n.elements()) f.node_slots.push_back(e.as<int>());
    });
    p.field("tiers", &FabricSpec::tiers,
            {.help = "fat_tree / rail_optimized: 3 builds a core tier even where two tiers fit; 0: fewest", .min = 0, .max = 3});
    p.check([](const InputNode& n, FabricSpec& f) {
      if (f.kind == FabricKind::none) {
        for (const auto& k : n.keys()) {
          if (k != "kind") n.at(k).fail("a fabric of kind none takes no other key");
        }
        return;
      }
      (void)n.at("technology");
      (void)n.at("link");
      (void)n.at("switch");
      if (!n.has("spine_switch")) f.spine = f.leaf;
      if (!n.has("core_switch")) f.core = f.spine;
    });
    return p;
  }();
  return t;
}

}  // namespace

const ParamTable<TopologyInput>& topology_params() {
  static const ParamTable<TopologyInput> t = [] {
    ParamTable<TopologyInput> p("", "A topology file: one node type and the fabric between nodes (docs/topology.md).");
    const ParamSpec version = format_version_spec("topology", {2}, "see docs/topology.md");
    p.custom(version, [check = version.check](const InputNode& n, TopologyInput&) { check(n); });
    p.field("name", &TopologyInput::name, {.help = "the topology's name", .required = true});
    p.field("description", &TopologyInput::description, {.help = "free text", .default_text = "empty"});
    p.section(&TopologyInput::node, node_params(), true);
    p.section(&TopologyInput::fabric, fabric_params(), true);
    return p;
  }();
  return t;
}

const ParamSection& topology_schema() { return topology_params().schema(); }

}  // namespace cs
