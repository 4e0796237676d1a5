# cli_devices.cmake -- --device and --devices in the command (issue 18),
# run by ctest with cmake -P. Expects -DWCODEC=<wcodec> -DIMAGES=<a folder
# of images> -DWORK=<scratch folder>, and -DMPIEXEC=<mpiexec or empty>.
#
# Everywhere: the options' mistakes, as this machine's device count makes
# them. With two devices or more (-DMULTI=1, label gpu): a batch on device
# 0, on 0 and 1, on all, on the CPU, and under mpirun with a GPU per rank,
# all give the same files, and both devices did work; with fewer it ends
# with SKIPPED.
foreach(v WCODEC IMAGES WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "cli_devices.cmake: -D${v}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(W "${WCODEC}")
file(GLOB images ${IMAGES}/*.png)
list(GET images 0 A)

include(${CMAKE_CURRENT_LIST_DIR}/../cli_run.cmake)

# How many devices: --version says "cuda: built in; N device(s)".
execute_process(COMMAND ${W} --version OUTPUT_VARIABLE version)
set(count 0)
if(version MATCHES "cuda: +built in; ([0-9]+) device")
  set(count ${CMAKE_MATCH_1})
endif()
message(STATUS "CUDA devices: ${count}")

# Mistakes, as this machine's count makes them.
run(1 "" "--devices: expected all or device numbers" ${W} encode ${A} --out-dir ${WORK}/x --devices 0,x)
if(count EQUAL 0)
  run(1 "" "--device 0: no CUDA device here" ${W} encode ${A} ${WORK}/x.wcx --device 0)
  run(1 "" "--devices all: no CUDA device here" ${W} encode ${A} --out-dir ${WORK}/x --devices all)
else()
  math(EXPR last "${count} - 1")
  run(1 "" "--device ${count}: the CUDA devices here are 0..${last}" ${W} encode ${A} ${WORK}/x.wcx --device ${count})
  run(1 "" "device 0 is named twice" ${W} encode ${A} --out-dir ${WORK}/x --devices 0,0)
  run(1 "" "--backend cpu uses no CUDA device" ${W} encode ${A} --out-dir ${WORK}/x --devices all --backend cpu)
  run(1 "" "not both" ${W} encode ${A} --out-dir ${WORK}/x --devices 0 --device 0)
  run(1 "" "--devices spreads a batch" ${W} encode ${A} ${WORK}/x.wcx --devices 0)
endif()
if(EXISTS ${WORK}/x OR EXISTS ${WORK}/x.wcx)
  message(FATAL_ERROR "a refused command wrote ${WORK}/x")
endif()
if(NOT MULTI)
  return()
endif()
if(count LESS 2)
  message("SKIPPED: fewer than two CUDA devices (${count})")
  return()
endif()

# One file on device 1, said so.
run(0 "" "backend: cuda \\(device 1\\)" ${W} encode ${A} ${WORK}/one.wcx --device 1 -v --quality 70)

# Batches: device 0 alone, 0 and 1 (both did work), all, the CPU.
foreach(mode lossless lossy)
  set(opts "")
  if(mode STREQUAL "lossy")
    set(opts --quality 70)
  endif()
  run(0 "on 1 GPU" "" ${W} encode ${IMAGES} --out-dir ${WORK}/d0-${mode} --devices 0 ${opts})
  run(0 "on 2 GPU" "" ${W} encode ${IMAGES} --out-dir ${WORK}/d01-${mode} --devices 0,1 --threads 4 -v ${opts})
  foreach(d 0 1)
    if(NOT last_err MATCHES "backend: cuda \\(device ${d}\\)")
      message(FATAL_ERROR "--devices 0,1: no file was coded on device ${d}:\n${last_err}")
    endif()
  endforeach()
  run(0 "" "" ${W} encode ${IMAGES} --out-dir ${WORK}/all-${mode} ${opts})
  run(0 "" "" ${W} encode ${IMAGES} --out-dir ${WORK}/cpu-${mode} --backend cpu ${opts})
  same_files(${WORK}/d0-${mode} ${WORK}/d01-${mode})
  same_files(${WORK}/d0-${mode} ${WORK}/all-${mode})
  same_files(${WORK}/d0-${mode} ${WORK}/cpu-${mode})
  run(0 "" "" ${W} decode ${WORK}/d0-${mode} --out-dir ${WORK}/dec0-${mode} --devices 0)
  run(0 "" "" ${W} decode ${WORK}/d0-${mode} --out-dir ${WORK}/dec01-${mode} --devices 0,1)
  same_files(${WORK}/dec0-${mode} ${WORK}/dec01-${mode})
endforeach()

# Under mpirun, a GPU per rank (its local rank's).
if(MPIEXEC)
  run(0 "2 rank\\(s\\) on 1 host\\(s\\) \\(2 with a GPU\\)" ""
      ${CMAKE_COMMAND} -E env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      ${MPIEXEC} -n 2 --bind-to none ${W} encode ${IMAGES} --out-dir ${WORK}/mpi-lossy --quality 70)
  same_files(${WORK}/d0-lossy ${WORK}/mpi-lossy)
endif()
