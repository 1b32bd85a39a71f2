// Compiled only by Layering.DownwardIncludeBuilds: the network layer may include the topology layer below it.
#include "sim/topology/topology.hpp"

int layering_right_way() { return static_cast<int>(sizeof(cs::Topology)); }
