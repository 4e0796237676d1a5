#!/bin/bash
# stream_memory.sh BUILD_DIR WORK_DIR [KODAK_DIR] [RUNS] -- peak memory and
# time of decoding large images, one thread, wcodec against OpenJPH's
# ojph_expand (openjph-tools) in the same run (issue 15):
#   a 16384 x 16384 RGB photograph (tiled Kodak, bench/make_big.c),
#     lossless (5/3) and 9/7 at a fixed step near 0.85 bpp (wcodec --step
#     15, ojph_compress -qstep 0.06);
#   a 46340 x 46340 gray photograph (just under 2^31 pixels), lossless.
# wcodec decodes a file in strips (wc_decode_stream); "whole" is the same
# file through standard input, which decodes the whole image in memory (the
# time overhead of the strips). Each figure is the median of RUNS runs
# (default 3; the 46340^2 image once) of /usr/bin/time's peak RSS and wall
# time; "estimate" is what the decoder planned for (wcodec -v). Outputs are
# PPM/PGM, and the wcodec ones are compared with each other (cmp) and the
# lossless ones with the input. The images and coded files stay in WORK_DIR
# (about 10 GB) for later runs; the first run makes them (the 46340^2
# encode needs about 17 GB with today's whole-image encoder).
set -u
build=$(cd "${1:-build}" && pwd)
work="${2:-/tmp/wc_stream_bench}"
kodak=$(cd "${3:-$(dirname "$0")/../../shared/corpus/kodak}" && pwd)
runs="${4:-3}"
wcodec="$build/programs/wcodec"
mkdir -p "$work" && cd "$work" || exit 1
export WC_BACKEND=cpu

[ -f photo16k.ppm ] || "$build/bench/make_big" "$kodak" 16384 16384 3 photo16k.ppm || exit 1
[ -f gray46k.pgm ] || "$build/bench/make_big" "$kodak" 46340 46340 1 gray46k.pgm || exit 1
big="--max-memory 20000000000"
[ -f p16_ll.wcx ] || "$wcodec" encode -q photo16k.ppm p16_ll.wcx $big || exit 1
[ -f p16_97.wcx ] || "$wcodec" encode -q photo16k.ppm p16_97.wcx --wavelet 97 --step 15 $big ||
  exit 1
[ -f g46_ll.wcx ] || "$wcodec" encode -q gray46k.pgm g46_ll.wcx $big || exit 1
[ -f p16_ll.j2c ] || ojph_compress -i photo16k.ppm -o p16_ll.j2c -reversible true >/dev/null
[ -f p16_97.j2c ] || ojph_compress -i photo16k.ppm -o p16_97.j2c -qstep 0.06 >/dev/null
[ -f g46_ll.j2c ] || ojph_compress -i gray46k.pgm -o g46_ll.j2c -reversible true >/dev/null

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# measure LABEL FILE N CMD...: N runs; prints the medians of peak MiB and s.
measure() {
  local label="$1" file="$2" n="$3"
  shift 3
  : >rss.txt
  : >sec.txt
  for _ in $(seq "$n"); do
    /usr/bin/time -f "%M %e" -o time.txt "$@" >/dev/null 2>note.txt || {
      echo "$label: failed: $(cat note.txt)"
      return 1
    }
    awk '{print $1 / 1024}' time.txt >>rss.txt
    awk '{print $2}' time.txt >>sec.txt
  done
  local est
  est=$(grep -Eo 'about [0-9]+ bytes' note.txt | awk '{printf "%.0f", $2 / 1048576}')
  local bpp
  bpp=$(stat -c %s "$file" | awk -v px="$pixels" '{printf "%.3f", $1 * 8 / px}')
  printf "%-34s %7s bpp  %9.1f MiB  %8.2f s  %s\n" "$label" "$bpp" "$(median <rss.txt)" \
    "$(median <sec.txt)" "${est:+estimate $est MiB}"
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)," \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "decode, one thread; peak RSS and wall time, median of $runs runs (46340^2: 1 run)"
for set in p16_ll:photo16k.ppm:ppm p16_97:photo16k.ppm:ppm g46_ll:gray46k.pgm:pgm; do
  IFS=: read -r name src ext <<<"$set"
  n=$runs
  [ "$name" = g46_ll ] && n=1
  pixels=$(head -c 64 "$src" | sed -n 2p | awk '{print $1 * $2}')
  measure "$name wcodec (strips)" $name.wcx $n "$wcodec" decode -v --threads 1 $name.wcx s.$ext
  measure "$name ojph_expand" $name.j2c $n ojph_expand -i $name.j2c -o o.$ext
  if [ "$name" != g46_ll ]; then
    measure "$name wcodec (whole, stdin)" $name.wcx $n sh -c \
      "\"$wcodec\" decode --threads 1 - w.$ext < $name.wcx"
    cmp -s s.$ext w.$ext || echo "$name: the strips differ from the whole decode!"
  fi
  case $name in *_ll) cmp -s s.$ext "$src" || echo "$name: not lossless!" ;; esac
  rm -f s.$ext w.$ext o.$ext
done
