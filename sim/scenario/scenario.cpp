#include "sim/scenario/scenario.hpp"

#include <filesystem>

#include "sim/core/data_dir.hpp"
#include "sim/input/input_node.hpp"
#include "sim/scenario/scenario_params.hpp"

namespace cs {

namespace {

/// Runs `f` (a profile or topology look-up), re-throwing its InputError at the scenario key `ref` was written
/// at, with the referenced file's own location kept in the message.
template <class F>
auto located(const FileRef& ref, F&& f) {
  try {
    return f();
  } catch (const InputError& e) {
    throw InputError(ref.where, ref.key_path, e.where().file.empty() ? e.message() : std::string("in ") + e.what());
  }
}

}  // namespace

void check_price_references(const Scenario& sc) {
  PriceBook book = sc.pricebook.empty() ? PriceBook::load_default() : PriceBook::load(sc.pricebook);
  const PriceChoice& p = sc.facility.prices;
  for (const PriceRef* r : {&p.electricity, &p.colocation, &p.facility_build, &p.node_support, &p.staff, &p.rack,
                            &p.optical_cable, &p.copper_cable, &p.node_transceiver, &p.switch_transceiver,
                            &p.storage, &p.cloud_on_demand, &p.cloud_reserved}) {
    if (!r->key_path.empty()) (void)book.at(*r);  // only ids the user wrote; the defaults are the shipped book's
  }
  book.apply_overrides(sc.facility.price_overrides);
}

namespace {

/// A count left `auto` that fills the cluster: cluster.gpus / `layout` (the GPUs of one replica or data-parallel
/// rank, written out as `layout_text`). When that does not divide, the error is at `section`'s `key` (or the
/// section where the key was left out).
int fill_cluster(const InputNode& section, std::string_view key, int gpus, int layout, const std::string& layout_text) {
  if (gpus % layout == 0) return gpus / layout;
  const std::string why = std::string(key) + " auto: cluster.gpus (" + std::to_string(gpus) +
                          ") is not a multiple of " + layout_text;
  if (const auto k = section.find(key)) k->fail(why);
  section.fail(why);
}

/// `parallelism.dp: auto` (or left out): cluster.gpus / (tp*pp*cp).
int auto_dp(const InputNode& root, const ParallelPlan& p, int gpus) {
  const int model_parallel = p.tp * p.pp * p.cp;
  return fill_cluster(root.at("parallelism"), "dp", gpus, model_parallel,
                      "tp*pp*cp = " + std::to_string(p.tp) + "*" + std::to_string(p.pp) + "*" + std::to_string(p.cp) +
                          " = " + std::to_string(model_parallel));
}

/// The residual set `ref` names (absent: the shipped one). A file the scenario names must exist (a path, or one
/// relative to the data directory); "none" gives no band; a missing shipped file leaves the band's reason.
std::shared_ptr<const ResidualSet> load_band_basis(const std::optional<FileRef>& ref) {
  if (!ref) return std::make_shared<const ResidualSet>(load_residual_set(data_path(kShippedBandBasis)));
  if (ref->name == "none") {
    auto none = std::make_shared<ResidualSet>();
    none->problem = "error_band_basis is none";
    return none;
  }
  std::error_code ec;
  const std::string path = std::filesystem::exists(ref->name, ec) ? ref->name : data_path(ref->name);
  if (!std::filesystem::exists(path, ec)) {
    throw InputError(ref->where, ref->key_path, "no residual file \"" + ref->name + "\" (nor " + path + ")");
  }
  auto set = std::make_shared<const ResidualSet>(load_residual_set(path));
  if (!set->problem.empty()) throw InputError(ref->where, ref->key_path, set->problem);
  return set;
}

/// The rest of an inference service's loading: its GPUs, profile, trace and prices. The deployment's replicas
/// must fill the cluster (or a part of one node, as a training job may).
Scenario load_service(const InputNode& root, const ScenarioInput& in, Scenario sc, const std::string& profile_override) {
  Deployment& d = sc.serving->deployment;
  if (d.replicas == Deployment::kAutoReplicas) {
    d.replicas = fill_cluster(root.at("serving").at("deployment"), "replicas", in.gpus, d.tp * d.pp,
                              "tp x pp = " + std::to_string(d.tp) + " x " + std::to_string(d.pp));
  }
  sc.topology = located(in.topology, [&] { return load_topology_for_job(in.topology.name, in.gpus); });
  const int node_gpus = sc.topology.node().gpus;
  const auto deployment = [&] { return root.at("serving").at("deployment"); };  // only when failing: it may be absent
  if (d.tp > node_gpus) {
    deployment().fail("tp " + std::to_string(d.tp) + " spans more than one " + std::to_string(node_gpus) + "-GPU node");
  }
  if (d.disaggregated()) {
    for (const PoolRole role : {PoolRole::prefill, PoolRole::decode}) {
      const char* key = role == PoolRole::prefill ? "prefill" : "decode";
      if (const int tp = d.pool(role).tp; tp > node_gpus) {
        deployment().at(key).fail("tp " + std::to_string(tp) + " spans more than one " + std::to_string(node_gpus) +
                                "-GPU node");
      }
    }
    const Deployment p = d.pool(PoolRole::prefill), q = d.pool(PoolRole::decode);
    if (d.gpus() != in.gpus) {
      root.at("cluster").at("gpus").fail(
          std::to_string(in.gpus) + " GPUs, but the disaggregated deployment uses prefill " +
          std::to_string(p.replicas) + " x tp " + std::to_string(p.tp) + " x pp " + std::to_string(p.pp) +
          " + decode " + std::to_string(q.replicas) + " x tp " + std::to_string(q.tp) + " x pp " +
          std::to_string(q.pp) + " = " + std::to_string(d.gpus()) + " GPUs");
    }
  } else if (d.gpus() != in.gpus) {
    root.at("cluster").at("gpus").fail(std::to_string(in.gpus) + " GPUs, but the deployment uses tp " +
                                       std::to_string(d.tp) + " x pp " + std::to_string(d.pp) + " x replicas " +
                                       std::to_string(d.replicas) + " = " + std::to_string(d.gpus()));
  }
  if (part_of_one_node(in.gpus, node_gpus)) sc.gpus = node_gpus;
  sc.profile = located(in.profile, [&] {
    return find_device_profile(profile_override.empty() ? in.profile.name : profile_override);
  });
  check_price_references(sc);
  sc.band_basis = std::make_shared<const ResidualSet>(
      ResidualSet{.problem = "the validation residuals are of training steps; serving rows have none yet"});
  for (const DType t : {d.weights, d.kv_cache}) {
    if (sc.profile.gpu.peak.count(t) == 0 && t != DType::bf16) {
      deployment().fail(sc.profile.gpu.name + " has no " + std::string(to_string(t)) + " peak in profile " +
                        sc.profile.provenance.profile);
    }
  }
  if (sc.serving->load.arrivals == ArrivalKind::trace) {
    // A trace path is relative to the scenario's directory (or absolute); the run reads it (run_serving), and its
    // errors name the trace file's line and column.
    std::filesystem::path path = sc.serving->load.trace;
    if (path.is_relative() && !sc.file.empty()) path = std::filesystem::path(sc.file).parent_path() / path;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      throw InputError(in.serving_trace_at, "serving.load.trace", "no trace file " + path.string());
    }
    sc.serving->load.trace = path.string();
  }
  return sc;
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
  ScenarioInput in;
  scenario_params().read(root, in);

  Scenario sc;
  sc.file = root.file();
  sc.name = in.name;
  sc.description = in.description;
  sc.model = in.model;
  sc.gpus = in.gpus;
  sc.plan = in.plan;
  sc.training = in.training;
  sc.network = in.network;
  sc.facility = in.facility;
  sc.serving = in.serving;
  if (sc.serving) return load_service(root, in, std::move(sc), profile_override);
  if (sc.plan.dp == ParallelPlan::kAutoDp) sc.plan.dp = auto_dp(root, sc.plan, in.gpus);
  // A job on part of one node, down to one GPU: the cluster is that node and the job uses cluster.gpus of it.
  sc.topology = located(in.topology, [&] { return load_topology_for_job(in.topology.name, in.gpus); });
  if (const int node_gpus = sc.topology.node().gpus; part_of_one_node(in.gpus, node_gpus)) {
    if (sc.plan.gpus() != in.gpus) {
      root.at("cluster").at("gpus").fail(std::to_string(in.gpus) + " GPUs on part of one " + std::to_string(node_gpus) +
                                         "-GPU node: the job must use all of them (tp*pp*dp*cp = " +
                                         std::to_string(sc.plan.gpus()) + ")");
    }
    sc.gpus = node_gpus;
  }
  sc.profile = located(in.profile, [&] {
    return find_device_profile(profile_override.empty() ? in.profile.name : profile_override);
  });
  check_price_references(sc);
  sc.band_basis = load_band_basis(in.band_basis);

  check_plan(root.location(), sc.model, sc.plan, sc.training, sc.gpus, sc.topology.node().gpus);
  if (sc.profile.gpu.peak.count(sc.training.precision) == 0) {
    root.at("training").at("precision").fail(sc.profile.gpu.name + " has no " +
                                             std::string(to_string(sc.training.precision)) + " peak in profile " +
                                             sc.profile.provenance.profile);
  }
  return sc;
}

}  // namespace cs
