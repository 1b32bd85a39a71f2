// Where clustersim finds its shipped data (profiles/, topologies/, scenarios/, data/).
#pragma once

#include <string>
#include <vector>

namespace cs {

/// $CLUSTERSIM_DATA_DIR when set, else the source tree the binary was built from.
[[nodiscard]] std::string data_dir();
/// data_dir() + "/" + relative.
[[nodiscard]] std::string data_path(const std::string& relative);
/// The names (without `.yaml`) of the YAML files in the shipped folder `relative` ("profiles/frameworks"), sorted;
/// none when the folder is missing.
[[nodiscard]] std::vector<std::string> shipped_yaml_names(const std::string& relative);

}  // namespace cs
