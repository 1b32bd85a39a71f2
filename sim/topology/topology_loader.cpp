// Reads topology files (docs/topology.md) through InputNode, so every error names file:line:column and key.
#include <filesystem>

#include "sim/core/data_dir.hpp"
#include "sim/input/input_node.hpp"
#include "sim/topology/topology.hpp"

namespace cs {
namespace {

LinkSpec parse_link(const InputNode& n) {
  LinkSpec l{n.get<Bandwidth>("bandwidth"), n.get<Time>("latency"), n.get_or<double>("efficiency", 1.0)};
  n.at("bandwidth").require(l.bandwidth.value() > 0, "must be positive");
  n.at("latency").require(l.latency >= Time::zero(), "must not be negative");
  if (n.has("efficiency")) n.at("efficiency").require(l.efficiency > 0 && l.efficiency <= 1, "must be in (0, 1]");
  n.finish();
  return l;
}

PcieAttach parse_attach(const InputNode& n) {
  const std::string s = n.as<std::string>();
  if (s == "gpu_switch") return PcieAttach::gpu_switch;
  if (s == "cpu") return PcieAttach::cpu;
  n.fail("unknown attach \"" + s + "\" (expected gpu_switch or cpu)");
}

int positive_int(const InputNode& parent, std::string_view key, int fallback, int min = 1) {
  const int v = parent.get_or<int>(key, fallback);
  if (parent.has(key)) parent.at(key).require(v >= min, "must be at least " + std::to_string(min));
  return v;
}

SwitchSpec parse_switch(const InputNode& n) {
  SwitchSpec s{n.get<std::string>("model"), n.get<int>("radix"), n.get<Time>("latency")};
  n.at("radix").require(s.radix >= 2, "must be at least 2");
  n.finish();
  return s;
}

FabricKind parse_fabric_kind(const InputNode& n) {
  const std::string s = n.as<std::string>();
  for (FabricKind k : {FabricKind::none, FabricKind::single_switch, FabricKind::rail_optimized, FabricKind::fat_tree,
                       FabricKind::rail_only, FabricKind::torus, FabricKind::hypercube}) {
    if (s == to_string(k)) return k;
  }
  n.fail("unknown fabric kind \"" + s +
         "\" (expected none, single_switch, rail_optimized, fat_tree, rail_only, torus or hypercube)");
}

NodeSpec parse_node_v2(const InputNode& n) {
  NodeSpec node;
  node.name = n.get<std::string>("name");
  node.gpu_model = n.get_or<std::string>("gpu", "");
  node.gpus = positive_int(n, "gpus", 0);
  n.at("gpus").require(node.gpus > 0, "must be positive");
  if (auto su = n.find("scale_up")) {
    const std::string kind = su->get<std::string>("kind");
    su->at("kind").require(kind == "nvswitch", "unknown scale_up kind \"" + kind + "\" (expected nvswitch)");
    node.scale_up.kind = ScaleUpKind::nvswitch;
    node.scale_up.generation = su->get<std::string>("generation");
    const int links = positive_int(*su, "links_per_gpu", 1);
    const Bandwidth per_link = su->get<Bandwidth>("link_bandwidth");
    su->at("link_bandwidth").require(per_link.value() > 0, "must be positive");
    node.scale_up.link = LinkSpec{per_link * links, su->get<Time>("latency"), su->get_or<double>("efficiency", 1.0)};
    if (su->has("efficiency")) {
      su->at("efficiency").require(node.scale_up.link.efficiency > 0 && node.scale_up.link.efficiency <= 1,
                                   "must be in (0, 1]");
    }
    node.scale_up.switch_latency = su->get<Time>("switch_latency");
    node.scale_up.nvls = su->get_or<bool>("nvls", false);
    su->finish();
  }
  const InputNode p = n.at("pcie");
  node.pcie.generation = p.get<std::string>("generation");
  node.pcie.gpu_link = parse_link(p.at("gpu_link"));
  node.pcie.switches = positive_int(p, "switches", 0, 0);
  if (node.pcie.switches > 0) {
    node.pcie.switch_uplink = parse_link(p.at("switch_uplink"));
    node.pcie.switch_latency = p.get<Time>("switch_latency");
  }
  node.pcie.root_complexes = positive_int(p, "root_complexes", 1);
  if (node.pcie.root_complexes > 1) node.pcie.cpu_link = parse_link(p.at("cpu_link"));
  p.finish();
  if (auto nic = n.find("nics")) {
    node.nic_spec.count = positive_int(*nic, "count", 0, 0);
    node.nic_spec.model = nic->get_or<std::string>("model", "");
    node.nic_spec.link = parse_link(nic->at("link"));
    node.nic_spec.host_link = nic->has("host_link") ? parse_link(nic->at("host_link")) : node.pcie.gpu_link;
    if (auto a = nic->find("attach")) node.nic_spec.attach = parse_attach(*a);
    if (auto rails = nic->find("rails")) {
      for (const auto& r : rails->elements()) node.nic_spec.rails.push_back(r.as<int>());
      rails->require(static_cast<int>(node.nic_spec.rails.size()) == node.nic_spec.count, "needs one rail per NIC");
    }
    nic->finish();
  }
  if (auto devs = n.find("devices")) {
    for (const auto& d : devs->elements()) {
      DeviceSpec dev{d.get<std::string>("kind"), positive_int(d, "count", 1), parse_link(d.at("link")),
                     PcieAttach::gpu_switch};
      if (auto a = d.find("attach")) dev.attach = parse_attach(*a);
      d.finish();
      node.devices.push_back(dev);
    }
  }
  n.finish();
  node.gpu_link = node.scale_up.kind == ScaleUpKind::nvswitch ? node.scale_up.link : node.pcie.gpu_link;
  node.nics = node.nic_spec.count;
  node.nic = node.nic_spec.link;
  return node;
}

FabricSpec parse_fabric(const InputNode& f) {
  FabricSpec fab;
  fab.kind = parse_fabric_kind(f.at("kind"));
  if (fab.kind == FabricKind::none) {
    f.finish();
    return fab;
  }
  fab.technology = f.get<std::string>("technology");
  fab.link = parse_link(f.at("link"));
  fab.leaf = parse_switch(f.at("switch"));
  fab.spine = f.has("spine_switch") ? parse_switch(f.at("spine_switch")) : fab.leaf;
  fab.core = f.has("core_switch") ? parse_switch(f.at("core_switch")) : fab.spine;
  fab.nodes_per_unit = positive_int(f, "nodes_per_unit", 32);
  if (auto o = f.find("oversubscription")) {
    fab.oversubscription.clear();
    for (const auto& e : o->elements()) {
      const double v = e.as<double>();
      e.require(v >= 1.0, "oversubscription (down:up) must be at least 1");
      fab.oversubscription.push_back(v);
    }
  }
  if (auto c = f.find("cables")) {
    const char* keys[] = {"node_leaf", "leaf_spine", "spine_core"};
    for (std::size_t i = 0; i < 3; ++i) {
      if (auto m = c->find(keys[i])) {
        const std::string s = m->as<std::string>();
        m->require(s == "optical" || s == "copper", "expected optical or copper");
        fab.optical[i] = s == "optical";
      }
    }
    c->finish();
  }
  fab.node_ports_per_transceiver = positive_int(f, "node_ports_per_transceiver", 2);
  fab.switch_ports_per_transceiver = positive_int(f, "switch_ports_per_transceiver", 2);
  if (auto d = f.find("torus_dims")) {
    for (const auto& e : d->elements()) fab.torus_dims.push_back(e.as<int>());
  }
  fab.sharp = f.get_or<bool>("sharp", false);
  f.finish();
  return fab;
}

}  // namespace

Topology load_topology(const std::string& name_or_path, int gpus) {
  std::string path = name_or_path;
  if (!std::filesystem::is_regular_file(path)) path = data_path("topologies/" + name_or_path + ".yaml");
  if (!std::filesystem::is_regular_file(path)) {
    throw InputError({}, "", "unknown topology \"" + name_or_path + "\" (no such file, nor " + path + ")");
  }
  const InputNode root = InputNode::load_file(path);
  const int version = root.get<int>("format_version");
  root.at("format_version").require(version == 2, "unsupported topology format_version " + std::to_string(version) +
                                                      " (this build reads 2; see docs/topology.md)");
  const std::string name = root.get<std::string>("name");
  (void)root.get_or<std::string>("description", "");
  NodeSpec node = parse_node_v2(root.at("node"));
  FabricSpec fabric = parse_fabric(root.at("fabric"));
  root.finish();
  if (gpus <= 0 || gpus % node.gpus != 0) {
    throw InputError({path, 0, 0}, "node.gpus",
                     std::to_string(gpus) + " GPUs is not a whole number of " + std::to_string(node.gpus) + "-GPU nodes");
  }
  const int nodes = gpus / node.gpus;
  try {
    return build_topology(name, std::move(node), std::move(fabric), nodes);
  } catch (const InputError& e) {
    throw InputError({path, 0, 0}, e.key_path(), e.message());
  }
}

}  // namespace cs
