#include "sim/sweep/sweep_schema.hpp"

#include "sim/input/input_node.hpp"

namespace cs {

const ParamSection& sweep_schema() {
  static const ParamSection s = [] {
    ParamSection r{.key = "", .help = "A sweep: a base scenario and axes of values (docs/sweeps.md)."};
    const ParamSpec version = format_version_spec("sweep", {1});
    ParamSpec name{.key = "name", .type = ParamType::text, .help = "the sweep's name, recorded in every row",
                   .required = true};
    name.check = [](const InputNode& n) { (void)n.as<std::string>(); };
    ParamSpec description{.key = "description", .type = ParamType::text, .help = "free text",
                          .default_text = "empty"};
    description.check = name.check;
    ParamSpec base{.key = "base", .type = ParamType::text,
                   .help = "the base scenario file, relative to the sweep file", .required = true};
    base.check = name.check;
    ParamSpec set{.key = "set", .type = ParamType::mapping,
                  .help = "edits applied to every point: a mapping of scenario key path (cluster.gpus) to value",
                  .default_text = "none"};
    ParamSpec axes{.key = "axes", .type = ParamType::mapping_or_list,
                   .help = "a mapping of scenario key path to a list of values (all axes crossed), or a list of "
                           "groups whose keys move together (zipped) while groups are crossed; a value may be "
                           "`search` for parallelism",
                   .required = true};
    r.params = {version, name, description, base, set, axes};
    return r;
  }();
  return s;
}

}  // namespace cs
