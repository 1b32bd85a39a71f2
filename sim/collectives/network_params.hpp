// The declarations of every key of a scenario's `network:` section (STYLE.md rule 10).
#pragma once

#include "sim/collectives/network_options.hpp"
#include "sim/input/param_table.hpp"

namespace cs {

[[nodiscard]] const EnumTable<NetworkBackend>& backend_names();
/// The `network:` section (built once; immutable, shared by threads).
[[nodiscard]] const ParamTable<NetworkOptions>& network_params();

}  // namespace cs
