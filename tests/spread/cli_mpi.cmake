# cli_mpi.cmake -- 'mpirun -n 2 wcodec encode|decode ... --out-dir' on the
# CPU backend (issue 18), run by ctest with cmake -P. Expects
# -DWCODEC=<wcodec> -DIMAGES=<a folder of images> -DWORK=<scratch folder>
# -DMPIEXEC=<mpiexec, or empty in a build without MPI>.
#
# Two ranks give the same files as one process, encode and decode; a bad
# file among good ones (dealt to rank 1: it has no pixels, so it comes
# last, to the rank with fewer) is reported by rank 0 while the others are
# coded, every rank exits 1, and nothing waits for ever (a time limit).
# One IN OUT file under mpirun is coded once, by rank 0.
foreach(v WCODEC IMAGES WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "cli_mpi.cmake: -D${v}=... is required")
  endif()
endforeach()
if(NOT MPIEXEC)
  message("SKIPPED: this build has no MPI (WCODEC_MPI=OFF, or libopenmpi-dev missing)")
  return()
endif()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(W "${WCODEC}")
# Open MPI refuses root unless told, and two ranks on fewer cores unless
# told (CI runs as root on 2 cores). Under AddressSanitizer (.ci/sanitize.sh)
# LeakSanitizer is off for the ranks: Open MPI's plugins, unloaded at exit,
# leave allocations it cannot name or suppress; every other check stays.
execute_process(COMMAND ${MPIEXEC} --version OUTPUT_VARIABLE version ERROR_QUIET)
set(asan "$ENV{ASAN_OPTIONS}")
if(asan)
  set(asan "${asan}:")
endif()
set(MPI ${CMAKE_COMMAND} -E env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    OMPI_MCA_rmaps_base_oversubscribe=1 "ASAN_OPTIONS=${asan}detect_leaks=0" ${MPIEXEC} -n 2)
if(version MATCHES "Open MPI")
  list(APPEND MPI --oversubscribe)
endif()

include(${CMAKE_CURRENT_LIST_DIR}/../cli_run.cmake)

foreach(mode lossless lossy)
  set(opts --backend cpu)
  if(mode STREQUAL "lossy")
    list(APPEND opts --quality 60 --transform dct)
  endif()
  run(0 "encoded 5 of 5 file\\(s\\), 0 failed, [0-9.]+ s with [0-9]+ worker" ""
      ${W} encode ${IMAGES} --out-dir ${WORK}/one-${mode} ${opts})
  run(0 "encoded 5 of 5 file\\(s\\), 0 failed, [0-9.]+ s with 2 rank\\(s\\) on 1 host\\(s\\)" ""
      ${MPI} ${W} encode ${IMAGES} --out-dir ${WORK}/two-${mode} ${opts})
  # One summary: rank 0's, and one line per file.
  string(REGEX MATCHALL "encoded [0-9]+ of" sums "${last_out}")
  string(REGEX MATCHALL "\\.wcx: " lines "${last_out}")
  list(LENGTH sums nsums)
  list(LENGTH lines nlines)
  if(NOT nsums EQUAL 1 OR NOT nlines EQUAL 5)
    message(FATAL_ERROR "two ranks printed ${nsums} summaries and ${nlines} file lines:\n${last_out}")
  endif()
  same_files(${WORK}/one-${mode} ${WORK}/two-${mode})
  run(0 "decoded 5 of 5" "" ${W} decode ${WORK}/one-${mode} --out-dir ${WORK}/dec1-${mode} --backend cpu)
  run(0 "decoded 5 of 5 file\\(s\\), 0 failed, [0-9.]+ s with 2 rank" ""
      ${MPI} ${W} decode ${WORK}/one-${mode} --out-dir ${WORK}/dec2-${mode} --backend cpu)
  same_files(${WORK}/dec1-${mode} ${WORK}/dec2-${mode})
endforeach()

# A bad file among good ones: reported, the rest coded, exit 1 everywhere
# (mpirun returns a rank's non-zero status).
file(WRITE ${WORK}/bad.png "not a PNG at all")
run(1 "encoded 5 of 6 file\\(s\\), 1 failed" "bad.png: "
    ${MPI} ${W} encode ${IMAGES} ${WORK}/bad.png --out-dir ${WORK}/with-bad --backend cpu)
file(GLOB made ${WORK}/with-bad/*.wcx)
list(LENGTH made nmade)
if(NOT nmade EQUAL 5 OR EXISTS ${WORK}/with-bad/bad.wcx)
  message(FATAL_ERROR "with a bad file, ${nmade} files were written: ${made}")
endif()
same_files(${WORK}/one-lossless ${WORK}/with-bad)

# An output folder that cannot be made: every rank stops, exit 2.
file(WRITE ${WORK}/a-file "x")
run(2 "" "--out-dir ${WORK}/a-file/sub" ${MPI} ${W} encode ${IMAGES} --out-dir ${WORK}/a-file/sub)

# One IN OUT file under mpirun: rank 0 codes it, once, and says so.
file(GLOB images ${IMAGES}/*.png)
list(GET images 0 first)
get_filename_component(stem ${first} NAME_WE)
run(0 "" "coded by rank 0 alone" ${MPI} ${W} encode ${first} ${WORK}/single.wcx --backend cpu)
string(REGEX MATCHALL "single\\.wcx: " lines "${last_out}")
list(LENGTH lines nlines)
if(NOT nlines EQUAL 1)
  message(FATAL_ERROR "one file under mpirun printed ${nlines} lines:\n${last_out}")
endif()
file(SHA256 ${WORK}/single.wcx h1)
file(SHA256 ${WORK}/one-lossless/${stem}.wcx h2)
if(NOT h1 STREQUAL h2)
  message(FATAL_ERROR "one file under mpirun differs from the batch's ${stem}.wcx")
endif()
