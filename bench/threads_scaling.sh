#!/usr/bin/env bash
# Issue 15's "every core": CPU encode and decode throughput of the tiled
# Kodak photograph at several thread counts, for one or more source trees
# in the same run (the second tree is the peer: the code before a change,
# with this tree's bench_photo.[ch] copied in, and bench_codec.c too where
# its common/parallel.h has the probe; from ba9b4f6 on, its own will do).
# Each tree gets a CPU-only Release build of bench_codec in
# TREE/build-threads; the modes then run tree after tree, so drift between
# minutes hits both alike.
# BENCH_TIMES=1 adds each case's split (transform, entropy, container);
# BENCH_PROBE=1 (this tree only: parallel.h's scaling probe) adds, per
# thread count, the serial fraction and the speedup Amdahl's law gives
# from one-thread CPU times, to set beside the measured one.
#   usage: bench/threads_scaling.sh KODAK_DIR SIZE RUNS THREADS TREE...
#   e.g.:  bench/threads_scaling.sh .deps/kodak 7680x4320 3 1,2,4,8,16 . ../before
#   issue 15's check on the 16-core host (>= 10x at 16 threads):
#          BENCH_PROBE=1 bench/threads_scaling.sh .deps/kodak 7680x4320 5 1,16 .
# Extra CMake options (a libtiff or cmocka from elsewhere) come in the
# environment's CMAKE_EXTRA, split on spaces.
set -euo pipefail
[ $# -ge 5 ] || { sed -n 12,15p "$0"; exit 1; }
kodak=$1 size=$2 runs=$3 threads=$4
shift 4
read -r -a extra <<< "${CMAKE_EXTRA:-}"
# The trees build side by side, each on its share of the cores.
jobs=$(( $(nproc) / $# > 0 ? $(nproc) / $# : 1 ))
build() {
  cmake -S "$1" -B "$1/build-threads" -DCMAKE_BUILD_TYPE=Release -DWCODEC_CUDA=OFF \
    -DWCODEC_TESTS=OFF "${extra[@]}" > "$1/build-threads.log" 2>&1 &&
    cmake --build "$1/build-threads" --target bench_codec -j"$jobs" >> "$1/build-threads.log" 2>&1
}
pids=()
for t in "$@"; do build "$t" & pids+=($!); done
i=0
for t in "$@"; do
  wait "${pids[$i]}" || { tail -30 "$t/build-threads.log"; exit 1; }
  i=$((i + 1))
done
echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
for mode in "lossless 5/3" "lossy 9/7 q75"; do
  for t in "$@"; do
    rev=$([ -e "$t/.git" ] && git -C "$t" rev-parse --short HEAD || echo "a copy")
    echo "== tree $t ($rev)"
    # The probe is only this tree's (a peer's library has none).
    if [ "$t" = "$1" ]; then
      "$t/build-threads/bench/bench_codec" "$kodak" "$size" "$runs" "$mode" "$threads"
    else
      BENCH_PROBE=0 "$t/build-threads/bench/bench_codec" "$kodak" "$size" "$runs" "$mode" "$threads"
    fi
  done
done
