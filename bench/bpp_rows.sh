#!/bin/sh
# bpp_rows.sh -- what a --bpp target costs by rows (issue 15: at most 1.2x
# the peak memory and 2x the time of a fixed-step encode): for each rate,
# `wcodec encode --bpp R --stream` beside `--step S --stream` at the step S
# the rule chose for R (the same file, which the script checks with cmp),
# optionally beside an older build's --bpp (OLD=path/to/wcodec), runs
# interleaved (A B C A B C ...), one thread, peak RSS and wall time from
# /usr/bin/time -v, medians of RUNS. A 16384^2 RGB photograph-like PPM from
# bench/make_big_image by default; the load average is printed with it.
#
#   bench/bpp_rows.sh [BUILD_DIR] [WORK_DIR]
#   env: KODAK_DIR (../shared/corpus/kodak), RUNS (3), RATES ("0.25 1 2"),
#        SIDE (16384), OLD (an older wcodec to time beside), IMAGE (use this
#        PPM instead of making one)
set -eu
BUILD=${1:-build}
WORK=${2:-/tmp/wcodec-bpp-rows}
KODAK_DIR=${KODAK_DIR:-$(dirname "$0")/../../shared/corpus/kodak}
RUNS=${RUNS:-3}
RATES=${RATES:-0.25 1 2}
SIDE=${SIDE:-16384}
W="$BUILD/programs/wcodec"
mkdir -p "$WORK"
IMAGE=${IMAGE:-$WORK/rgb$SIDE.ppm}
[ -f "$IMAGE" ] || "$BUILD/bench/make_big_image" "$KODAK_DIR" "$SIDE" "$SIDE" 3 "$IMAGE"

# one NAME OUT CMD...: appends "rss_kib seconds" to $WORK/NAME.t
one() {
    name=$1; shift
    /usr/bin/time -v "$@" > "$WORK/log" 2> "$WORK/time" || { cat "$WORK/time"; exit 1; }
    echo "$(awk -F: '/Maximum resident/ {print $2}' "$WORK/time") $(awk -F': ' '/Elapsed/ {n = split($2, t, ":"); s = 0; for (k = 1; k <= n; k++) s = s * 60 + t[k]; print s}' "$WORK/time")" >> "$WORK/$name.t"
}
med() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "image: $IMAGE; one thread; medians of $RUNS interleaved run(s)"
echo "load before: $(cat /proc/loadavg)"
printf '%-26s %10s %8s %8s %8s\n' "encode by rows" "peak MiB" "time s" "x fixed" "bpp"
for R in $RATES; do
    # the rule's step for R: 2^(m/16), m from -v's note
    "$W" encode "$IMAGE" "$WORK/b.wcx" --bpp "$R" --stream --threads 1 -v > "$WORK/note" 2>&1
    m=$(sed -n 's/.*step 2^(\(-*[0-9]*\)\/16).*/\1/p' "$WORK/note")
    S=$(awk -v m="$m" 'BEGIN {printf "%.9g", 2 ^ (m / 16)}')
    rm -f "$WORK"/*.t
    i=0
    while [ "$i" -lt "$RUNS" ]; do
        one step "$W" encode "$IMAGE" "$WORK/s.wcx" --step "$S" --stream --threads 1 -q
        one bpp "$W" encode "$IMAGE" "$WORK/b.wcx" --bpp "$R" --stream --threads 1 -q
        [ -z "${OLD:-}" ] || one old "$OLD" encode "$IMAGE" "$WORK/o.wcx" --bpp "$R" --stream --threads 1 -q
        i=$((i + 1))
    done
    cmp -s "$WORK/s.wcx" "$WORK/b.wcx" || { echo "--bpp $R and --step $S gave different files"; exit 1; }
    bpp=$(stat -c %s "$WORK/b.wcx" | awk -v p="$SIDE" '{printf "%.3f", $1 * 8 / (p * p)}')
    ts=$(awk '{print $2}' "$WORK/step.t" | med)
    for n in step bpp old; do
        [ -f "$WORK/$n.t" ] || continue
        rss=$(awk '{print $1 / 1024}' "$WORK/$n.t" | med)
        t=$(awk '{print $2}' "$WORK/$n.t" | med)
        case $n in step) label="--step $S" ;; bpp) label="--bpp $R" ;; old) label="--bpp $R (OLD)" ;; esac
        printf '%-26s %10.1f %8.2f %8.2f %8s\n' "$label" "$rss" "$t" "$(echo "$t $ts" | awk '{print $1 / $2}')" "$bpp"
    done
    echo "  times: step $(awk '{printf "%s ", $2}' "$WORK/step.t")| bpp $(awk '{printf "%s ", $2}' "$WORK/bpp.t")$([ -f "$WORK/old.t" ] && echo "| old $(awk '{printf "%s ", $2}' "$WORK/old.t")")"
    echo "  load: $(cat /proc/loadavg)"
done
rm -f "$WORK"/*.wcx "$WORK"/*.t
