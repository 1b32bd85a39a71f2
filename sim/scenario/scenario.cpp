#include "sim/scenario/scenario.hpp"

#include "sim/input/input_node.hpp"

namespace cs {

namespace {
constexpr int kFormatVersion = 1;

/// Runs `f` (a profile or topology look-up), re-throwing its InputError at the scenario key `where`, with
/// the referenced file's own location kept in the message.
template <class F>
auto located(const InputNode& where, F&& f) {
  try {
    return f();
  } catch (const InputError& e) {
    where.fail(e.where().file.empty() ? e.message() : std::string("in ") + e.what());
  }
}
}  // namespace

Scenario load_scenario(const std::string& path, const std::string& profile_override) {
  return load_scenario(InputNode::load_file(path), profile_override);
}

Scenario load_scenario_text(const std::string& yaml_text, const std::string& name,
                            const std::string& profile_override) {
  return load_scenario(InputNode::parse(yaml_text, name), profile_override);
}

Scenario load_scenario(const InputNode& root, const std::string& profile_override) {
  const std::string& path = root.file();
  root.allow_only({"format_version", "name", "description", "model", "cluster", "parallelism", "training",
                  "network", "facility"});
  Scenario sc;
  sc.file = path;
  const InputNode version = root.at("format_version");
  version.require(version.as<int>() == kFormatVersion,
                  "unsupported format_version " + version.as<std::string>() + " (this build reads " +
                      std::to_string(kFormatVersion) + ")");
  sc.name = root.get<std::string>("name");
  sc.description = root.get_or<std::string>("description", "");

  sc.model = parse_model_spec(root.at("model"));

  const InputNode cluster = root.at("cluster");
  sc.gpus = cluster.get<int>("gpus");
  cluster.at("gpus").require(sc.gpus > 0, "must be a positive number of GPUs");
  const InputNode topo = cluster.at("topology");
  sc.topology = located(topo, [&] { return load_topology(topo.as<std::string>(), sc.gpus); });
  const InputNode prof = cluster.at("profile");
  sc.profile = located(prof, [&] {
    return find_device_profile(profile_override.empty() ? prof.as<std::string>() : profile_override);
  });
  cluster.finish();

  sc.plan = parse_parallel_plan(root.at("parallelism"));
  sc.training = parse_training_config(root.at("training"), sc.model);
  if (auto n = root.find("network")) sc.network = parse_network_options(*n);
  if (auto f = root.find("facility")) sc.facility = parse_facility_config(*f);
  root.finish();

  check_plan(root.location(), sc.model, sc.plan, sc.training, sc.gpus, sc.topology.node().gpus);
  if (sc.profile.gpu.peak.count(sc.training.precision) == 0) {
    root.at("training").at("precision").fail(sc.profile.gpu.name + " has no " +
                                             std::string(to_string(sc.training.precision)) + " peak in profile " +
                                             sc.profile.provenance.profile);
  }
  return sc;
}

}  // namespace cs
