# Run by Layering.CliIncludesOnlyTheApi: the clustersim command goes through the public API. Every
# `#include "sim/..."` of sim/cli/*.cpp and *.hpp must name sim/api/clustersim.hpp or the command's own headers
# (sim/cli/...); system and third-party headers (<CLI/CLI.hpp>, <fmt/format.h>, <iostream>) are not checked.
# Usage: cmake -DCLI_DIR=<source>/sim/cli -P cli_includes.cmake
file(GLOB sources ${CLI_DIR}/*.cpp ${CLI_DIR}/*.hpp)
if(NOT sources)
  message(FATAL_ERROR "no sources under ${CLI_DIR}")
endif()
set(violations "")
foreach(source ${sources})
  file(STRINGS ${source} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"sim/")
  foreach(line ${includes})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" header "${line}")
    if(NOT header STREQUAL "sim/api/clustersim.hpp" AND NOT header MATCHES "^sim/cli/")
      get_filename_component(name ${source} NAME)
      string(APPEND violations "\n  sim/cli/${name}: #include \"${header}\"")
    endif()
  endforeach()
endforeach()
if(violations)
  message(FATAL_ERROR "the CLI includes headers below sim/api (route it through sim/api/clustersim.hpp):"
                      "${violations}")
endif()
list(LENGTH sources n)
message(STATUS "${n} CLI files include only sim/api/clustersim.hpp and sim/cli/")
