# cli_run.cmake -- what the command's cmake -P tests share (tests/*/cli_*.cmake).

# run(rc stdout-regex stderr-regex command...): the exit status and the
# outputs match (either regex may be ""); at most 300 s, so a hang fails.
# Leaves the outputs in last_out and last_err.
function(run want_rc want_out want_err)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 300)
  if(NOT rc STREQUAL "${want_rc}")
    message(FATAL_ERROR "'${ARGN}' exited with ${rc}, expected ${want_rc}\n${out}${err}")
  endif()
  if(want_out AND NOT out MATCHES "${want_out}")
    message(FATAL_ERROR "'${ARGN}': stdout does not match '${want_out}':\n${out}")
  endif()
  if(want_err AND NOT err MATCHES "${want_err}")
    message(FATAL_ERROR "'${ARGN}': stderr does not match '${want_err}':\n${err}")
  endif()
  set(last_out "${out}" PARENT_SCOPE)
  set(last_err "${err}" PARENT_SCOPE)
endfunction()

# same_files(A B): every file of A is in B with the same bytes, and B has
# no others.
function(same_files a b)
  file(GLOB fa RELATIVE ${a} ${a}/*)
  file(GLOB fb RELATIVE ${b} ${b}/*)
  list(SORT fa)
  list(SORT fb)
  if(NOT fa STREQUAL fb OR NOT fa)
    message(FATAL_ERROR "${a} and ${b} hold different files:\n${fa}\n${fb}")
  endif()
  foreach(f ${fa})
    file(SHA256 ${a}/${f} ha)
    file(SHA256 ${b}/${f} hb)
    if(NOT ha STREQUAL hb)
      message(FATAL_ERROR "${a}/${f} and ${b}/${f} differ")
    endif()
  endforeach()
endfunction()
