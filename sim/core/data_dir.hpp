// Where clustersim finds its shipped data (profiles/, topologies/, scenarios/, data/).
#pragma once

#include <string>

namespace cs {

/// $CLUSTERSIM_DATA_DIR when set, else the source tree the binary was built from.
[[nodiscard]] std::string data_dir();
/// data_dir() + "/" + relative.
[[nodiscard]] std::string data_path(const std::string& relative);

}  // namespace cs
