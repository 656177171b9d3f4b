# Run by `cmake --install` (make install) after the binary is copied: its debug info goes to
# BIN_DIR/.debug/tokenbench.debug (where gdb looks for a debug link beside the binary), and the
# installed binary is stripped and linked to it by name and CRC (objcopy --add-gnu-debuglink).
# OBJCOPY and STRIP are the toolchain's, set when the build was configured.
set(bin "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/tokenbench")
set(debug_dir "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/.debug")
set(debug_file "${debug_dir}/tokenbench.debug")
if(NOT OBJCOPY OR NOT STRIP)
  message(STATUS "tokenbench: no objcopy or strip: ${bin} keeps its debug info")
  return()
endif()
file(MAKE_DIRECTORY "${debug_dir}")
foreach(step
    "${OBJCOPY};--only-keep-debug;--compress-debug-sections;${bin};${debug_file}"
    "${STRIP};--strip-debug;--strip-unneeded;${bin}"
    "${OBJCOPY};--add-gnu-debuglink=${debug_file};${bin}")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tokenbench: '${step}' failed (${rc})")
  endif()
endforeach()
message(STATUS "tokenbench: stripped ${bin}; debug info in ${debug_file}")
