#include "sim/scenario/scenario_params.hpp"

#include "sim/workload/framework_profile.hpp"

#include "sim/collectives/network_params.hpp"
#include "sim/scenario/band_basis.hpp"
#include "sim/facility/facility_params.hpp"
#include "sim/workload/framework_profile.hpp"
#include "sim/workload/workload_params.hpp"

namespace cs {
namespace {

constexpr int kFormatVersion = 1;

ParamSpec file_ref_spec(std::string key, std::string help) {
  ParamSpec s{.key = std::move(key), .type = ParamType::text, .help = std::move(help), .required = true};
  s.check = [](const InputNode& n) { (void)n.as<std::string>(); };
  return s;
}

FileRef read_ref(const InputNode& n) { return {n.as<std::string>(), n.location(), n.path()}; }

const ParamTable<ScenarioInput>& cluster_params() {
  static const ParamTable<ScenarioInput> t = [] {
    ParamTable<ScenarioInput> p("cluster", "The machine: how many GPUs, their node and fabric, their cost profile.");
    p.field("gpus", &ScenarioInput::gpus,
            {.help = "GPUs in the cluster: whole nodes of the topology, or fewer than one node (dividing it: 1, 2, 4 of 8), a job on part of that node using all of them", .positive = true,
             .required = true});
    p.custom(file_ref_spec("topology", "a topology name (topologies/NAME.yaml) or file path (docs/topology.md)"),
             [](const InputNode& n, ScenarioInput& s) { s.topology = read_ref(n); });
    p.custom(file_ref_spec("profile", "a device profile name (profiles/NAME.yaml) or file path (docs/profiles.md); "
                                      "the CLI's --profile overrides it"),
             [](const InputNode& n, ScenarioInput& s) { s.profile = read_ref(n); });
    return p;
  }();
  return t;
}

}  // namespace

const ParamTable<ScenarioInput>& scenario_params() {
  static const ParamTable<ScenarioInput> t = [] {
    ParamTable<ScenarioInput> p("", "A scenario: one training job on one cluster (docs/scenario.md).");
    const ParamSpec version = format_version_spec("scenario", {kFormatVersion});
    p.custom(version, [check = version.check](const InputNode& n, ScenarioInput&) { check(n); });
    p.field("name", &ScenarioInput::name, {.help = "the scenario's name, printed in every result", .required = true});
    p.field("description", &ScenarioInput::description, {.help = "free text", .default_text = "empty"});

    ParamSection model = model_params().schema();
    model.required = true;
    p.custom_section(std::move(model), [](const InputNode& n, ScenarioInput& s) {
      model_params().read(n, s.model);
      check_model_spec(n, s.model);
    });
    p.section(cluster_params(), true);
    // A training job (parallelism + training) or an inference service (serving): the check below says which.
    p.section(&ScenarioInput::plan, parallel_plan_params());
    ParamSection training = training_params().schema();
    p.custom_section(std::move(training), [](const InputNode& n, ScenarioInput& s) {
      s.training.seq_len = s.model.seq_len;  // the default the table documents
      apply_framework(find_framework_profile(kDefaultFramework), s.training);  // training.framework replaces it
      training_params().read(n, s.training);
    });
    p.section(&ScenarioInput::network, network_params());
    p.section(&ScenarioInput::facility, facility_params());
    ParamSpec basis = file_ref_spec(
        "error_band_basis",
        "the step-time residuals (measured / predicted) of validation rows that the run's error band rests on: a "
        "CSV as `clustersim validate --residuals-out` writes it, a path or one relative to the data directory; "
        "`none`: no band");
    basis.required = false;
    basis.default_text = kShippedBandBasis;
    p.custom(basis, [](const InputNode& n, ScenarioInput& s) { s.band_basis = read_ref(n); });
    p.custom_section(serving_params().schema(), [](const InputNode& n, ScenarioInput& s) {
      s.serving = parse_serving_config(n);
      if (const auto load = n.find("load")) {
        if (const auto trace = load->find("trace")) s.serving_trace_at = trace->location();
      }
    });
    p.check([](const InputNode& root, ScenarioInput& s) {
      const bool trains = root.has("training"), serves = root.has("serving");
      if (trains && serves) {
        root.at("serving").fail("a scenario is a training job (training:) or an inference service (serving:), not both");
      }
      if (!trains && !serves) root.fail("a scenario needs a training: section (a training job) or a serving: section (an inference service)");
      if (trains) (void)root.at("parallelism");  // "missing key" where it is absent
      if (serves && root.has("parallelism")) {
        root.at("parallelism").fail("an inference service is laid out by serving.deployment (tp, pp, ep, replicas), not parallelism:");
      }
      (void)s;
    });
    return p;
  }();
  return t;
}

const ParamSection& scenario_schema() { return scenario_params().schema(); }

}  // namespace cs
