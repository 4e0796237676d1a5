#!/usr/bin/env bash
# A short libFuzzer run of every fuzz target (tests/fuzz), failing on any
# crash, leak, timeout, sanitizer report or out-of-memory.
#   usage: [FUZZ_SECONDS=60] .ci/fuzz.sh [target ...]   (default: all seven)
# Builds build-fuzzer with clang and -DWCODEC_FUZZ=ON (ASan + UBSan + the
# fuzzer's coverage), then runs each target for FUZZ_SECONDS seconds
# (-max_total_time) on a copy of its corpus, several at a time when there
# are cores for it. A failing input is left in build-fuzzer/fuzz-run/<target>/
# as crash-*, leak-*, timeout-* or oom-*: fix the bug, then add the input to
# tests/fuzz/corpus/<target>/ as regress_<what>.<ext>.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/need.sh
ci_need_build
ci_need clang
llvm="$(clang -dumpversion | cut -d. -f1)"
[ -f "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a)" ] || ci_need "libclang-rt-${llvm}-dev"

seconds="${FUZZ_SECONDS:-60}"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_decode fuzz_png fuzz_pnm fuzz_tiff fuzz_png_meta fuzz_huffman fuzz_roundtrip)

CC=clang cmake -S . -B build-fuzzer -DWCODEC_FUZZ=ON -DWCODEC_CUDA=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzzer -j"$(nproc)" --target "${targets[@]}"

run_dir="$PWD/build-fuzzer/fuzz-run"
rm -rf "$run_dir"
# One run: a fresh copy of the corpus (libFuzzer adds to the folder it is
# given), limits as in the ctest replay, and its final statistics.
fuzz_one() {
  local t="$1" dir="$run_dir/$1"
  mkdir -p "$dir/corpus"
  cp tests/fuzz/corpus/"$t"/* "$dir/corpus/"
  (cd "$dir" && ASAN_OPTIONS="detect_leaks=1" ../../tests/fuzz/"$t" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 \
      -print_final_stats=1 -artifact_prefix="$dir/" corpus >"$dir/log.txt" 2>&1)
}

jobs_max="$(nproc)"
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
  echo "$t: $status, ${execs:-?} executions, ${speed:-?} exec/s, cov ${cov:-?}"
  if [ "$status" = FAILED ]; then
    grep -E 'ERROR|SUMMARY|runtime error|check failed|Test unit written' "$log" | head -20
    ls "$run_dir/$t"/{crash,leak,timeout,oom,slow-unit}-* 2>/dev/null || true
  fi
done
exit "$failed"
