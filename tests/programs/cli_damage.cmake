# cli_damage.cmake -- the wcodec command on damaged input (ctest runs it
# with cmake -P). Expects -DWCODEC=<wcodec binary> -DDATA=<tests/codec/data>
# -DWORK=<a scratch folder>.
#
# A damaged file (a flipped bit: CRC mismatch; a cut: truncation) must make
# `wcodec decode` and `wcodec info` exit with status 1 and a message that
# names the problem, write no output file, and leave a file already at the
# output path as it was. The intact file must decode (status 0, output
# written), so the checks above cannot pass by the command never working.
foreach(v WCODEC DATA WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "cli_damage.cmake: -D${v}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(expect_run want_rc want_text)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "${want_rc}")
    message(FATAL_ERROR "'${ARGN}' exited with ${rc}, expected ${want_rc}\n${out}${err}")
  endif()
  if(want_text AND NOT err MATCHES "${want_text}")
    message(FATAL_ERROR "'${ARGN}': stderr does not match '${want_text}':\n${err}")
  endif()
endfunction()

# The intact file decodes.
expect_run(0 "" "${WCODEC}" decode -q "${DATA}/small_gray.wcx" "${WORK}/good.png")
if(NOT EXISTS "${WORK}/good.png")
  message(FATAL_ERROR "decoding the intact file wrote no output")
endif()

set(crc_text "chunk [0-9]+ \\(WDAT\\) at byte [0-9]+: CRC mismatch")
set(cut_text "without a WEND chunk|needs [0-9]+ bytes, only [0-9]+ left")
foreach(case "damaged_crc.wcx;${crc_text}" "truncated.wcx;${cut_text}")
  list(GET case 0 name)
  list(GET case 1 text)
  foreach(ext png pgm)
    set(out "${WORK}/${name}.${ext}")
    expect_run(1 "${text}" "${WCODEC}" decode "${DATA}/${name}" "${out}")
    if(EXISTS "${out}")
      message(FATAL_ERROR "decoding ${name} failed but left ${out}")
    endif()
    # An existing file at the output path stays as it was.
    file(WRITE "${out}" "keep me")
    expect_run(1 "${text}" "${WCODEC}" decode "${DATA}/${name}" "${out}")
    file(READ "${out}" kept)
    if(NOT kept STREQUAL "keep me")
      message(FATAL_ERROR "decoding ${name} failed but changed the existing ${out}")
    endif()
  endforeach()
  expect_run(1 "${text}" "${WCODEC}" info "${DATA}/${name}")
endforeach()

# No temporary files left behind in the output folder either.
file(GLOB left "${WORK}/*.tmp*")
if(left)
  message(FATAL_ERROR "temporary files left behind: ${left}")
endif()
