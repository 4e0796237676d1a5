#!/usr/bin/env bash
# A short libFuzzer run of every fuzz target (tests/fuzz), failing on any
# crash, leak, timeout, sanitizer report or out-of-memory.
#   usage: [FUZZ_SECONDS=60] [FUZZ_JOBS=N] [FUZZ_RUN_DIR=DIR] [FUZZ_BUILD_DIR=DIR]
#          [FUZZ_SYSTEM_PNG=1] .ci/fuzz.sh [target ...]
#          (default: all seven targets, as many at once as there are cores,
#          logs and findings under build-fuzzer/fuzz-run)
# Builds build-fuzzer with clang and -DWCODEC_FUZZ=ON (ASan + UBSan + the
# fuzzer's coverage), and fuzz_png in build-fuzzer-png with zlib and libpng
# instrumented too (.ci/fuzz_deps.sh), then runs each target for FUZZ_SECONDS seconds
# (-max_total_time) on a copy of its corpus, several at a time when there
# are cores for it. A failing input is left in build-fuzzer/fuzz-run/<target>/
# as crash-*, leak-*, timeout-* or oom-*: fix the bug, then add the input to
# tests/fuzz/corpus/<target>/ as regress_<what>.<ext>.
#
# Memory: the harnesses decode and read with limits near real ones (4
# Mpixels, 256 MiB: FUZZ_MAX_MEMORY in tests/fuzz/fuzz_image.h and
# fuzz_decode.c). -malloc_limit_mb
# matches that limit, so one allocation larger than all a call may hold is
# a finding; -rss_limit_mb allows the limit plus ASan's quarantine (set to
# 64 MiB), shadow memory and the corpus, so an input that makes a call
# hold much more than its estimate is a finding too.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/need.sh
ci_need_build
ci_need clang
llvm="$(clang -dumpversion | cut -d. -f1)"
[ -f "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a)" ] || ci_need "libclang-rt-${llvm}-dev"

seconds="${FUZZ_SECONDS:-60}"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_decode fuzz_png fuzz_pnm fuzz_tiff fuzz_png_meta fuzz_huffman fuzz_roundtrip fuzz_rows)

build="${FUZZ_BUILD_DIR:-build-fuzzer}"
CC=clang cmake -S . -B "$build" -DWCODEC_FUZZ=ON -DWCODEC_CUDA=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"

# fuzz_png is built apart, in $build-png, against zlib and libpng built
# with the same instrumentation (.ci/fuzz_deps.sh), so that its coverage
# reaches inside them. The other targets keep the system's zlib: traced
# inside zlib's deflate, fuzz_roundtrip ran 120 executions a CPU-second
# instead of 213. FUZZ_SYSTEM_PNG=1 builds fuzz_png like the others.
png_build="$build"
if [[ " ${targets[*]} " == *" fuzz_png "* ]] && [ "${FUZZ_SYSTEM_PNG:-0}" != 1 ]; then
  if deps="$(.ci/fuzz_deps.sh "$build/deps" | tail -1)"; then
    png_build="$build-png"
    CC=clang cmake -S . -B "$png_build" -DWCODEC_FUZZ=ON -DWCODEC_CUDA=OFF \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DPNG_LIBRARY_RELEASE="$deps/lib/libpng16.a" -DPNG_PNG_INCLUDE_DIR="$deps/include" \
      -DZLIB_LIBRARY_RELEASE="$deps/lib/libz.a" -DZLIB_INCLUDE_DIR="$deps/include" >/dev/null
    cmake --build "$png_build" -j"$(nproc)" --target fuzz_png
  else
    # A mirror without the source packages should not fail CI: say so loudly.
    echo "WARNING: instrumented zlib/libpng could not be built; fuzz_png runs on the" \
         "system's uninstrumented libpng (its coverage stops at the library's door)"
  fi
fi

run_dir="${FUZZ_RUN_DIR:-$PWD/$build/fuzz-run}"
rm -rf "$run_dir"
# One run: a fresh copy of the corpus (libFuzzer adds to the folder it is
# given), limits as in the ctest replay, and its final statistics.
fuzz_one() {
  local t="$1" dir="$run_dir/$1"
  mkdir -p "$dir/corpus"
  cp tests/fuzz/corpus/"$t"/* "$dir/corpus/"
  local bin="$PWD/$build/tests/fuzz/$t"
  [ "$t" != fuzz_png ] || bin="$PWD/$png_build/tests/fuzz/$t"
  (cd "$dir" && ASAN_OPTIONS="detect_leaks=1:quarantine_size_mb=64" "$bin" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=640 -malloc_limit_mb=256 \
      -print_final_stats=1 -artifact_prefix="$dir/" corpus >"$dir/log.txt" 2>&1)
}

jobs_max="${FUZZ_JOBS:-$(nproc)}"
pids=()
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do sleep 1; done
  echo "fuzzing $t for ${seconds}s"
  fuzz_one "$t" &
  pids+=("$!")
done

failed=0
for i in "${!targets[@]}"; do
  t="${targets[$i]}" log="$run_dir/${targets[$i]}/log.txt"
  if wait "${pids[$i]}"; then status=ok; else status=FAILED; failed=1; fi
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
  speed="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")"
  cov="$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)"
  ft="$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)"
  echo "$t: $status, ${execs:-?} executions, ${speed:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}"
  if [ "$status" = FAILED ]; then
    # (a run stopped by a signal has none of these lines: no match is no error)
    grep -E 'ERROR|SUMMARY|runtime error|check failed|Test unit written' "$log" | head -20 || true
    ls "$run_dir/$t"/{crash,leak,timeout,oom,slow-unit}-* 2>/dev/null || true
  fi
done
exit "$failed"
