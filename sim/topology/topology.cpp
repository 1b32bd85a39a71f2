#include "sim/topology/topology.hpp"

#include <filesystem>

#include "sim/core/data_dir.hpp"
#include "sim/input/input_node.hpp"

namespace cs {
namespace {

LinkSpec parse_link(const InputNode& n) {
  LinkSpec l{n.get<Bandwidth>("bandwidth"), n.get<Time>("latency")};
  n.at("bandwidth").require(l.bandwidth.value() > 0, "must be positive");
  n.at("latency").require(l.latency >= Time::zero(), "must not be negative");
  n.finish();
  return l;
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
  root.at("format_version").require(version == 1, "unsupported topology format_version " + std::to_string(version));
  const std::string name = root.get<std::string>("name");
  const InputNode n = root.at("node");
  NodeSpec node;
  node.name = n.get<std::string>("name");
  node.gpus = n.get<int>("gpus");
  n.at("gpus").require(node.gpus > 0, "must be positive");
  node.gpu_link = parse_link(n.at("gpu_link"));
  node.nics = n.get<int>("nics");
  n.at("nics").require(node.nics >= 0, "must not be negative");
  node.nic = parse_link(n.at("nic"));
  n.finish();
  root.finish();
  if (gpus <= 0 || gpus % node.gpus != 0) {
    throw InputError({path, 0, 0}, "node.gpus",
                     std::to_string(gpus) + " GPUs is not a whole number of " + std::to_string(node.gpus) + "-GPU nodes");
  }
  return Topology(name, node, gpus / node.gpus);
}

}  // namespace cs
