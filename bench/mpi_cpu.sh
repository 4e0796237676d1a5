#!/usr/bin/env bash
# Issue 18's CPU case: 'mpirun -n 2 wcodec encode' over 48 images (the 24
# Kodak images twice) against one rank, on the CPU backend, RUNS times
# each, alternating. A rank has one worker here (two ranks on two cores:
# the default), so one rank is one core's work; a third row, one process
# with a worker per core, is the threads' answer to the same machine. It prints each run, the medians, the ratio, and whether
# the two ranks' files are the files of one. Two times are kept: the
# summary's (coding: from the deal to the results on rank 0) and the whole
# command's (mpirun's start-up included).
#   usage: bench/mpi_cpu.sh [BUILD_DIR, default build] [RUNS, default 7] [encode options...]
#   e.g.:  bench/mpi_cpu.sh build 7 --quality 75
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
runs="${2:-7}"
shift $(( $# < 2 ? $# : 2 ))
wcodec=$(find "$PWD/$build" -name wcodec -type f -perm -u+x 2>/dev/null | head -1)
kodak="${KODAK:-../shared/corpus/kodak}"
[ -n "$wcodec" ] || { echo "mpi_cpu.sh: no wcodec in $build (build first)"; exit 1; }
"$wcodec" --version | grep -q "mpi: *built in" || { echo "mpi_cpu.sh: $wcodec has no MPI"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/in"
for r in 1 2; do
  for f in "$kodak"/kodim*.png; do ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$work/in/$(basename "$f" .png)_$r.png"; done
done
n=$(ls "$work/in" | wc -l)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 WC_BACKEND=cpu
echo "$n images, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), options: ${*:-(lossless)}"

# One run: prints "coding_seconds wall_seconds cores", cores being the CPU
# time the command and its ranks got over its wall time (bash's time): on
# a machine shared with others' work, what two ranks could use at all.
one() {
  local ranks=$1 dir=$2
  shift 2
  rm -rf "$dir"
  local line t
  t=$( { TIMEFORMAT='%R %U %S'; time mpirun -n "$ranks" --oversubscribe "$wcodec" encode "$work/in" \
         --out-dir "$dir" "$@" > "$work/line"; } 2>&1 | tail -1)
  line=$(tail -1 "$work/line")
  echo "$(echo "$line" | sed -E 's/.* failed, ([0-9.]+) s with.*/\1/')" \
       "$(echo "$t" | awk '{ printf "%s %.2f", $1, ($2 + $3) / $1 }')"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: > "$work/r1"
: > "$work/r2"
: > "$work/rt"
for k in $(seq "$runs"); do
  a=$(one 1 "$work/one" --threads 1 "$@")
  b=$(one 2 "$work/two" "$@")
  c=$(one 1 "$work/threads" "$@")
  echo "$a" >> "$work/r1"
  echo "$b" >> "$work/r2"
  echo "$c" >> "$work/rt"
  read -r a1 a2 a3 <<< "$a"
  read -r b1 b2 b3 <<< "$b"
  read -r c1 c2 c3 <<< "$c"
  echo "run $k: 1 rank $a1 s coding, $a2 s whole, $a3 cores; 2 ranks $b1 s, $b2 s, $b3 cores;" \
       "1 process x $(nproc) workers $c1 s, $c3 cores; load $(cut -d' ' -f1 /proc/loadavg)"
done
ct=$(cut -d' ' -f1 "$work/rt" | median)
k1=$(cut -d' ' -f3 "$work/r1" | median)
k2=$(cut -d' ' -f3 "$work/r2" | median)
c1=$(cut -d' ' -f1 "$work/r1" | median)
w1=$(cut -d' ' -f2 "$work/r1" | median)
c2=$(cut -d' ' -f1 "$work/r2" | median)
w2=$(cut -d' ' -f2 "$work/r2" | median)
same=$(diff -rq "$work/one" "$work/two" > /dev/null && diff -rq "$work/one" "$work/threads" > /dev/null && echo yes || echo NO)
awk -v n="$n" -v c1="$c1" -v c2="$c2" -v w1="$w1" -v w2="$w2" -v ct="$ct" -v k1="$k1" -v k2="$k2" -v same="$same" 'BEGIN {
  printf "medians: 1 rank %.3f s (%.1f images/s), 2 ranks %.3f s (%.1f images/s): %.2fx coding\n", c1, n / c1, c2, n / c2, c1 / c2
  printf "whole command (mpirun start-up included): 1 rank %.3f s, 2 ranks %.3f s: %.2fx\n", w1, w2, w1 / w2
  printf "one process, a worker per core: %.3f s (%.2fx one rank)\n", ct, c1 / ct
  printf "CPU the command got (median, in cores): 1 rank %.2f, 2 ranks %.2f\n", k1, k2
  printf "files identical: %s\n", same }'
[ "$same" = yes ]
