#!/bin/sh
# encode_memory_dct.sh -- peak memory and time of a big DCT (and LOT)
# encode: wcodec by rows (--stream: strips of 8 rows, codec/stream_dct.c)
# against wcodec's whole-image encode (--no-stream) and libjpeg-turbo's
# cjpeg in the same run, one thread each. Peak RSS and wall time from
# /usr/bin/time -v, the median of RUNS runs; the input is a SIDE^2 RGB
# photograph-like PPM from bench/make_big_image.
#
#   bench/encode_memory_dct.sh [BUILD_DIR] [WORK_DIR]
#   env: KODAK_DIR (../shared/corpus/kodak), RUNS (3), SIDE (8192),
#        QUALITY (75: wcodec --quality and cjpeg -quality), NO_LOT=1,
#        MONO=1 also the Monolithic 9/7 at --step 15 by rows and whole
set -eu
BUILD=${1:-build}
WORK=${2:-/tmp/wcodec-encode-memory-dct}
KODAK_DIR=${KODAK_DIR:-$(dirname "$0")/../../shared/corpus/kodak}
RUNS=${RUNS:-3}
SIDE=${SIDE:-8192}
QUALITY=${QUALITY:-75}
W="$BUILD/programs/wcodec"
mkdir -p "$WORK"
IN="$WORK/rgb$SIDE.ppm"
[ -f "$IN" ] || "$BUILD/bench/make_big_image" "$KODAK_DIR" "$SIDE" "$SIDE" 3 "$IN"
P=$((SIDE * SIDE))

# run NAME OUT CMD...: peak RSS (MiB), seconds and the output's bpp, medians
run() {
    name=$1; out=$2; shift 2
    rss=""; sec=""
    i=0
    while [ $i -lt "$RUNS" ]; do
        /usr/bin/time -v "$@" > "$WORK/log" 2> "$WORK/time" || { cat "$WORK/time"; exit 1; }
        rss="$rss $(awk -F: '/Maximum resident/ {print $2}' "$WORK/time")"
        sec="$sec $(awk -F': ' '/Elapsed/ {n = split($2, t, ":"); s = 0; for (k = 1; k <= n; k++) s = s * 60 + t[k]; print s}' "$WORK/time")"
        i=$((i + 1))
    done
    med() { echo "$@" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
    bytes=$(stat -c %s "$out")
    printf '%-40s %9.1f MiB %8.2f s %7.3f bpp\n' "$name" "$(med $rss | awk '{print $1 / 1024}')" \
        "$(med $sec)" "$(echo "$bytes $P" | awk '{print $1 * 8 / $2}')"
    rm -f "$out"
}

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB"
echo "== ${SIDE}x$SIDE RGB 8-bit, peak RSS and wall time, one thread, median of $RUNS run(s) =="
run "wcodec DCT --quality $QUALITY --stream" "$WORK/o.wcx" "$W" encode "$IN" "$WORK/o.wcx" --transform dct --quality "$QUALITY" --stream --threads 1 -q
run "wcodec DCT --quality $QUALITY, whole image" "$WORK/o.wcx" "$W" encode "$IN" "$WORK/o.wcx" --transform dct --quality "$QUALITY" --no-stream --threads 1 -q
if command -v cjpeg > /dev/null; then
    run "cjpeg -quality $QUALITY -optimize" "$WORK/o.jpg" cjpeg -quality "$QUALITY" -optimize -outfile "$WORK/o.jpg" "$IN"
    run "cjpeg -quality $QUALITY" "$WORK/o.jpg" cjpeg -quality "$QUALITY" -outfile "$WORK/o.jpg" "$IN"
else
    echo "cjpeg: not installed (libjpeg-turbo-progs)"
fi
if [ -z "${NO_LOT:-}" ]; then
    run "wcodec LOT --quality $QUALITY --stream" "$WORK/o.wcx" "$W" encode "$IN" "$WORK/o.wcx" --transform lot --quality "$QUALITY" --stream --threads 1 -q
    run "wcodec LOT --quality $QUALITY, whole image" "$WORK/o.wcx" "$W" encode "$IN" "$WORK/o.wcx" --transform lot --quality "$QUALITY" --no-stream --threads 1 -q
fi
if [ -n "${MONO:-}" ]; then
    run "wcodec Monolithic 9/7 --step 15 --stream" "$WORK/o.wcx" "$W" encode "$IN" "$WORK/o.wcx" --dwt-scheme monolithic --step 15 --stream --threads 1 -q
    run "wcodec Monolithic 9/7 --step 15, whole" "$WORK/o.wcx" "$W" encode "$IN" "$WORK/o.wcx" --dwt-scheme monolithic --step 15 --no-stream --threads 1 -q
    run "wcodec separable 9/7 --step 15 --stream" "$WORK/o.wcx" "$W" encode "$IN" "$WORK/o.wcx" --step 15 --stream --threads 1 -q
fi
