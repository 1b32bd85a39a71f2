// The declarations of every key of a topology file (docs/topology.md; STYLE.md rule 10): the loader reads
// through them, and the docs' key tables, `clustersim schema topology` and the planner read their schema.
#pragma once

#include <string>

#include "sim/input/param_table.hpp"
#include "sim/topology/topology_spec.hpp"

namespace cs {

/// What a topology file says (format_version 2).
struct TopologyInput {
  std::string name;
  std::string description;
  NodeSpec node;
  FabricSpec fabric;
};

[[nodiscard]] const EnumTable<FabricKind>& fabric_kind_names();
[[nodiscard]] const ParamTable<TopologyInput>& topology_params();
[[nodiscard]] const ParamSection& topology_schema();

}  // namespace cs
