# Run at build time (cmake -P) for one module: fails when a file of the module includes a
# tokenbench header of a module it does not depend on (CMakeLists.txt, tokenbench_module), so that
# a dependency against DESIGN's order, or a cycle, fails the build.
#   -DMODULE=name -DALLOWED=a;b;c -DFILES=f1;f2 -DSTAMP=path
cmake_minimum_required(VERSION 3.22)
set(bad "")
foreach(f ${FILES})
  file(STRINGS ${f} lines REGEX "^#include \"tokenbench/[a-z_]+/")
  foreach(line ${lines})
    string(REGEX REPLACE "^#include \"tokenbench/([a-z_]+)/.*" "\\1" used "${line}")
    if(NOT used IN_LIST ALLOWED)
      string(APPEND bad "  ${f}: ${line}\n")
    endif()
  endforeach()
endforeach()
if(NOT bad STREQUAL "")
  message(FATAL_ERROR "module ${MODULE} may include only ${ALLOWED} (its declared dependencies, "
    "tokenbench_module in CMakeLists.txt), but:\n${bad}")
endif()
file(WRITE ${STAMP} "ok\n")
