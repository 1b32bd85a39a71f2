// Reads topology files (docs/topology.md) through InputNode, so every error names file:line:column and key.
#include <filesystem>

#include "sim/core/data_dir.hpp"
#include "sim/input/input_node.hpp"
#include "sim/topology/topology.hpp"
#include "sim/topology/topology_params.hpp"

namespace cs {
namespace {

std::string topology_path(const std::string& name_or_path) {
  std::string path = name_or_path;
  if (!std::filesystem::is_regular_file(path)) path = data_path("topologies/" + name_or_path + ".yaml");
  if (!std::filesystem::is_regular_file(path)) {
    throw InputError({}, "", "unknown topology \"" + name_or_path + "\" (no such file, nor " + path + ")");
  }
  return path;
}

TopologyInput read_input(const std::string& path) {
  TopologyInput in;
  topology_params().read(InputNode::load_file(path), in);
  return in;
}

Topology build_from(const std::string& path, TopologyInput in, int gpus) {
  NodeSpec node = std::move(in.node);
  node.gpu_link = node.scale_up.kind == ScaleUpKind::nvswitch ? node.scale_up.link : node.pcie.gpu_link;
  node.nics = node.nic_spec.count;
  node.nic = node.nic_spec.link;
  FabricSpec fabric = std::move(in.fabric);
  const std::string name = in.name;
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

}  // namespace

bool part_of_one_node(int job_gpus, int node_gpus) noexcept {
  return job_gpus > 0 && job_gpus < node_gpus && node_gpus % job_gpus == 0;
}

Topology load_topology(const std::string& name_or_path, int gpus) {
  const std::string path = topology_path(name_or_path);
  return build_from(path, read_input(path), gpus);
}

Topology load_topology_for_job(const std::string& name_or_path, int job_gpus) {
  const std::string path = topology_path(name_or_path);
  TopologyInput in = read_input(path);
  const int node_gpus = in.node.gpus;
  return build_from(path, std::move(in), part_of_one_node(job_gpus, node_gpus) ? node_gpus : job_gpus);
}

}  // namespace cs
