// The declarations of every key of a scenario's `facility:` section (STYLE.md rule 10): the parser, the docs'
// key tables, the JSON Schema and the planner's forms all come from this table.
#pragma once

#include "sim/facility/facility_config.hpp"
#include "sim/input/param_table.hpp"

namespace cs {

[[nodiscard]] const EnumTable<Cooling>& cooling_names();
[[nodiscard]] const EnumTable<Site>& site_names();

/// The `facility:` section (built once; immutable, shared by threads).
[[nodiscard]] const ParamTable<FacilityConfig>& facility_params();

}  // namespace cs
