#pragma once

#include <CLI/CLI.hpp>

namespace cs::cli {

/// `clustersim schema KIND [--markdown]`: the JSON Schema (or Markdown key table) of scenario, topology, profile
/// or sweep files, derived from the parameter declarations; `clustersim schema --update-docs FILE...` re-renders
/// the `<!-- params: ... -->` tables of documentation files in place.
void register_schema_command(CLI::App& app);

}  // namespace cs::cli
