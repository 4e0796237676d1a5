# cli_conventions.cmake -- the command's conventions and batches (issue 14),
# run by ctest with cmake -P. Expects -DWCODEC=<wcodec binary>
# -DIMAGES=<tests/data/kodak> -DWORK=<a scratch folder>.
foreach(v WCODEC IMAGES WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "cli_conventions.cmake: -D${v}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(W "${WCODEC}")
set(A "${IMAGES}/kodim03.png")
set(B "${IMAGES}/kodim23.png")

include(${CMAKE_CURRENT_LIST_DIR}/../cli_run.cmake) # run(rc out-regex err-regex command...)

# Every --help exits 0 and prints to stdout.
run(0 "usage: wcodec" "" ${W} --help)
foreach(cmd encode decode info compare bench sweep plot)
  run(0 "usage: wcodec ${cmd}" "" ${W} ${cmd} --help)
  run(0 "usage: wcodec ${cmd}" "" ${W} ${cmd} x y --help)
endforeach()
run(0 "libraries: libpng [0-9.]+, libtiff [0-9.]+, zlib" "" ${W} --version)

# --opt=value as well as --opt value: the same file.
run(0 "" "" ${W} encode ${A} ${WORK}/q1.wcx --quality 50)
run(0 "" "" ${W} encode ${A} ${WORK}/q2.wcx --quality=50)
file(SHA256 ${WORK}/q1.wcx h1)
file(SHA256 ${WORK}/q2.wcx h2)
if(NOT h1 STREQUAL h2)
  message(FATAL_ERROR "--quality=50 and --quality 50 gave different files")
endif()

# --quality 100 is lossless; --bpp above the lossless rate gives the lossless
# file and says so; compare --exact passes on both.
run(0 "\\(lossless\\)" "" ${W} encode ${A} ${WORK}/q100.wcx --quality 100)
run(0 "" "" ${W} compare ${A} ${WORK}/q100.wcx --exact)
run(0 "\\(lossless\\)" "at or above the lossless rate" ${W} encode ${A} ${WORK}/b30.wcx --bpp 30)
run(0 "" "" ${W} compare ${A} ${WORK}/b30.wcx --exact)
run(1 "" "--quality 100 is lossless" ${W} encode ${A} ${WORK}/x.wcx --quality 100 --transform dct)

# --dwt-scheme monolithic or explosive: a 2.0 file that says so, exact when lossless;
# an unknown scheme is refused by name.
run(0 "" "" ${W} encode ${A} ${WORK}/m.wcx --dwt-scheme monolithic)
run(0 "format 2.0.*5/3 monolithic" "" ${W} info ${WORK}/m.wcx)
run(0 "" "" ${W} compare ${A} ${WORK}/m.wcx --exact)
run(0 "" "" ${W} encode ${A} ${WORK}/m97.wcx --dwt-scheme=monolithic --quality 60)
run(0 "9/7 monolithic" "" ${W} info ${WORK}/m97.wcx)
run(0 "" "" ${W} encode ${A} ${WORK}/e.wcx --dwt-scheme explosive)
run(0 "format 2.0.*5/3 explosive" "" ${W} info ${WORK}/e.wcx)
run(0 "" "" ${W} compare ${A} ${WORK}/e.wcx --exact)
run(0 "" "" ${W} encode ${A} ${WORK}/e97.wcx --dwt-scheme=explosive --quality 60)
run(0 "9/7 explosive" "" ${W} info ${WORK}/e97.wcx)
run(1 "" "--dwt-scheme: expected separable, monolithic or explosive, got 'polyphase'"
    ${W} encode ${A} ${WORK}/x.wcx --dwt-scheme polyphase)

# compare exits 0 when it ran, 3 below a bar.
run(0 "PSNR colour" "" ${W} compare ${A} ${WORK}/q1.wcx)
run(3 "" "differ \\(--exact\\)" ${W} compare ${A} ${WORK}/q1.wcx --exact)
run(3 "" "below --min-psnr 60" ${W} compare ${A} ${WORK}/q1.wcx --min-psnr=60)
run(0 "" "" ${W} compare ${A} ${WORK}/q1.wcx --min-psnr 20)

# Mistakes say what they are.
run(1 "" "-q is --quiet here; for quality give --quality 50" ${W} encode ${A} -q 50 ${WORK}/x.wcx)
run(1 "" "is a folder: give --out-dir" ${W} encode ${IMAGES} ${WORK}/x.wcx)
run(1 "" "is a folder, not an image" ${W} compare ${IMAGES} ${A})
run(1 "" "WC_BACKEND=bogus: expected cpu, cuda or auto"
    ${CMAKE_COMMAND} -E env WC_BACKEND=bogus ${W} encode ${A} ${WORK}/x.wcx)
if(EXISTS ${WORK}/x.wcx)
  message(FATAL_ERROR "a failed encode left ${WORK}/x.wcx")
endif()

# Batches: files and folders into --out-dir, a bad file reported while the
# rest go on (exit 1), each output the same as a call of its own.
file(WRITE ${WORK}/bad.png "not a PNG at all")
run(1 "encoded 5 of 6 file\\(s\\), 1 failed" "bad.png: "
    ${W} encode ${IMAGES} ${WORK}/bad.png --out-dir ${WORK}/out --threads 2)
run(0 "" "" ${W} encode ${B} ${WORK}/single.wcx)
file(SHA256 ${WORK}/out/kodim23.wcx h1)
file(SHA256 ${WORK}/single.wcx h2)
if(NOT h1 STREQUAL h2)
  message(FATAL_ERROR "the batch's kodim23.wcx differs from a call of its own")
endif()
run(0 "decoded 5 of 5" "" ${W} decode ${WORK}/out --out-dir ${WORK}/back --format=tif)
run(0 "" "" ${W} compare ${B} ${WORK}/back/kodim23.tif --exact)
run(1 "" "would both write" ${W} encode ${A} ${A} --out-dir ${WORK}/o2)
run(1 "" "unknown output format" ${W} decode ${WORK}/out --out-dir ${WORK}/o3 --format bmp)

# Metadata: the Kodak PNGs (and their crops) carry gamma, chromaticities and
# text; info lists
# them, --strip leaves them out, a TIFF output says what it cannot hold.
run(0 "metadata: *5 item\\(s\\)\n  gamma  " "" ${W} info ${WORK}/single.wcx)
run(0 "" "" ${W} encode ${B} ${WORK}/strip.wcx --strip)
run(0 "metadata: *none" "" ${W} info ${WORK}/strip.wcx)
run(0 "" "no place for: .*gamma" ${W} decode ${WORK}/single.wcx ${WORK}/single.tif)
run(0 "" "" ${W} encode ${WORK}/single.tif ${WORK}/fromtif.wcx)
run(0 "" "" ${W} compare ${B} ${WORK}/fromtif.wcx --exact)
