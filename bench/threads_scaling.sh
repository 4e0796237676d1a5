#!/usr/bin/env bash
# Issue 15's "every core": CPU encode and decode throughput of the tiled
# Kodak photograph at several thread counts, for one or more source trees
# in the same run (the second tree is the peer: the code before a change,
# with this tree's bench_codec.c and bench_photo.[ch] copied in). Each tree
# gets a CPU-only Release build of bench_codec in TREE/build-threads; the
# modes then run tree after tree, so drift between minutes hits both alike.
# BENCH_TIMES=1 adds each case's split (transform, entropy, container).
#   usage: bench/threads_scaling.sh KODAK_DIR SIZE RUNS THREADS TREE...
#   e.g.:  bench/threads_scaling.sh .deps/kodak 7680x4320 3 1,2,4,8,16 . ../before
# Extra CMake options (a libtiff or cmocka from elsewhere) come in the
# environment's CMAKE_EXTRA, split on spaces.
set -euo pipefail
[ $# -ge 5 ] || { sed -n 9,10p "$0"; exit 1; }
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
    "$t/build-threads/bench/bench_codec" "$kodak" "$size" "$runs" "$mode" "$threads"
  done
done
