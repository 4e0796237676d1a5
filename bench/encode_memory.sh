#!/bin/sh
# encode_memory.sh -- peak memory and time of encoding big images, wcodec
# by rows (wc_encode_rows, --stream) beside OpenJPH's ojph_compress in the
# same run, one thread each (issue 15): a 16384^2 RGB photograph-like PPM,
# lossless, lossy at a fixed step and at a --bpp target, and a 46340^2
# gray PGM (just under 2^31 pixels). Peak RSS and wall time from /usr/bin/time -v; the median of
# RUNS runs (default 1: the big ones take minutes).
#
#   bench/encode_memory.sh [BUILD_DIR] [WORK_DIR]
#   env: KODAK_DIR (../shared/corpus/kodak), RUNS, STEP (wcodec's step, 15),
#        BPP (wcodec's rate target by rows, 0.86: about STEP's rate),
#        QSTEP (ojph's, 0.06), SIDE (16384), GRAY (46340), WHOLE=1 also the
#        whole-image encode (--no-stream) of the RGB image, SKIP_GRAY=1
set -eu
BUILD=${1:-build}
WORK=${2:-/tmp/wcodec-encode-memory}
KODAK_DIR=${KODAK_DIR:-$(dirname "$0")/../../shared/corpus/kodak}
RUNS=${RUNS:-1}
STEP=${STEP:-15}
BPP=${BPP:-0.86}
QSTEP=${QSTEP:-0.06}
SIDE=${SIDE:-16384}
GRAY=${GRAY:-46340}
W="$BUILD/programs/wcodec"
mkdir -p "$WORK"
[ -f "$WORK/rgb$SIDE.ppm" ] || "$BUILD/bench/make_big_image" "$KODAK_DIR" "$SIDE" "$SIDE" 3 "$WORK/rgb$SIDE.ppm"
if [ -z "${SKIP_GRAY:-}" ] && [ ! -f "$WORK/gray$GRAY.pgm" ]; then
    "$BUILD/bench/make_big_image" "$KODAK_DIR" "$GRAY" "$GRAY" 1 "$WORK/gray$GRAY.pgm"
fi

# run NAME OUT CMD...: prints peak RSS (MiB), seconds and the output's bpp
run() {
    name=$1; out=$2; pixels=$3; shift 3
    rss=""; sec=""
    i=0
    while [ $i -lt "$RUNS" ]; do
        /usr/bin/time -v "$@" > "$WORK/log" 2> "$WORK/time" || { cat "$WORK/time"; exit 1; }
        rss="$rss $(awk -F: '/Maximum resident/ {print $2}' "$WORK/time")"
        sec="$sec $(awk -F': ' '/Elapsed/ {n = split($2, t, ":"); s = 0; for (k = 1; k <= n; k++) s = s * 60 + t[k]; print s}' "$WORK/time")"
        i=$((i + 1))
    done
    med() { echo "$@" | tr ' ' '\n' | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
    bytes=$(stat -c %s "$out")
    printf '%-44s %9.1f MiB %8.1f s %7.3f bpp\n' "$name" "$(med $rss | awk '{print $1 / 1024}')" \
        "$(med $sec)" "$(echo "$bytes $pixels" | awk '{print $1 * 8 / $2}')"
    rm -f "$out"
}

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB"
echo "peak RSS and wall time, one thread, median of $RUNS run(s)"
P=$((SIDE * SIDE))
echo "== ${SIDE}x$SIDE RGB 8-bit =="
run "wcodec lossless --stream" "$WORK/o.wcx" $P "$W" encode "$WORK/rgb$SIDE.ppm" "$WORK/o.wcx" --stream --threads 1 -q
run "ojph_compress lossless (reversible)" "$WORK/o.j2c" $P ojph_compress -i "$WORK/rgb$SIDE.ppm" -o "$WORK/o.j2c" -num_decomps 5 -reversible true
run "wcodec 9/7 --step $STEP --stream" "$WORK/o.wcx" $P "$W" encode "$WORK/rgb$SIDE.ppm" "$WORK/o.wcx" --step "$STEP" --stream --threads 1 -q
run "wcodec 9/7 --bpp $BPP --stream" "$WORK/o.wcx" $P "$W" encode "$WORK/rgb$SIDE.ppm" "$WORK/o.wcx" --bpp "$BPP" --stream --threads 1 -q
run "ojph_compress 9/7 -qstep $QSTEP" "$WORK/o.j2c" $P ojph_compress -i "$WORK/rgb$SIDE.ppm" -o "$WORK/o.j2c" -num_decomps 5 -qstep "$QSTEP"
if [ -n "${WHOLE:-}" ]; then
    run "wcodec lossless, whole image" "$WORK/o.wcx" $P "$W" encode "$WORK/rgb$SIDE.ppm" "$WORK/o.wcx" --no-stream --threads 1 -q
    run "wcodec 9/7 --step $STEP, whole image" "$WORK/o.wcx" $P "$W" encode "$WORK/rgb$SIDE.ppm" "$WORK/o.wcx" --step "$STEP" --no-stream --threads 1 -q
fi
if [ -z "${SKIP_GRAY:-}" ]; then
    P=$((GRAY * GRAY))
    echo "== ${GRAY}x$GRAY gray 8-bit =="
    run "wcodec lossless --stream" "$WORK/o.wcx" $P "$W" encode "$WORK/gray$GRAY.pgm" "$WORK/o.wcx" --stream --threads 1 -q
    run "ojph_compress lossless (reversible)" "$WORK/o.j2c" $P ojph_compress -i "$WORK/gray$GRAY.pgm" -o "$WORK/o.j2c" -num_decomps 5 -reversible true
fi
