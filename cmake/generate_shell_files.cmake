# Run at build time (cmake/package.cmake): the man page and the shell completions, each printed
# by the built binary (BINARY) from its own commands and flags; the man page and the package's
# CHANGELOG also gzipped (-n: no name or time stamp, so that the same input gives the same file).
get_filename_component(man_dir "${MAN_PAGE}" DIRECTORY)
get_filename_component(bash_dir "${BASH_COMPLETION}" DIRECTORY)
get_filename_component(zsh_dir "${ZSH_COMPLETION}" DIRECTORY)
file(MAKE_DIRECTORY "${man_dir}" "${bash_dir}" "${zsh_dir}")
foreach(step "man;${MAN_PAGE}" "completion;bash;${BASH_COMPLETION}"
    "completion;zsh;${ZSH_COMPLETION}")
  list(POP_BACK step out)
  execute_process(COMMAND "${BINARY}" ${step} OUTPUT_FILE "${out}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tokenbench: '${BINARY} ${step}' failed (${rc})")
  endif()
endforeach()
if(NOT GZIP)
  message(FATAL_ERROR "tokenbench: gzip is needed for the man page (Debian's gzip package)")
endif()
foreach(file "${MAN_PAGE}" "${CHANGELOG}")
  execute_process(COMMAND "${GZIP}" -9 -n -c "${file}" OUTPUT_FILE "${file}.gz"
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tokenbench: gzip ${file} failed (${rc})")
  endif()
endforeach()
