# CPack's CPACK_PRE_BUILD_SCRIPTS (cmake/package.cmake): run on the staged files before the
# package is made. `make install` puts the binary's split debug info in bin/.debug
# (cmake/split_debug.cmake); a Debian package keeps debug info out of the package (a -dbgsym
# package would carry it), so it is removed from the staging directory.
file(GLOB debug_dirs "${CPACK_TEMPORARY_DIRECTORY}/usr/bin/.debug")
if(debug_dirs)
  file(REMOVE_RECURSE ${debug_dirs})
endif()
