// Compiled only by Layering.UpwardIncludeFailsToBuild, which expects this include to be refused: the network
// layer does not link the scenario layer, so the scenario layer's include root is not on its path.
#include "sim/scenario/scenario.hpp"

int layering_wrong_way() { return 0; }
