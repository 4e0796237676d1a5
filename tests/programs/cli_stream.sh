#!/bin/bash
# cli_stream.sh WCODEC IMAGE WORKDIR -- 'wcodec decode' of a file on the
# host streams (wc_decode_stream): the PNG, PPM and TIFF it writes are the
# bytes of the whole decode (from standard input), for lossless, 9/7, DCT
# and LOT files; -v names the strips; a damaged or truncated file, or a
# limit below the strips' need, exits 1 and leaves no output (an existing
# one untouched).
set -u
wcodec="$1"
image="$2"
dir="$3"
. "$(dirname "$0")/cli_lib.sh" "$dir"
export WC_BACKEND=cpu
expect 0 "" "$wcodec" encode -q "$image" ll.wcx
expect 0 "" "$wcodec" encode -q "$image" w97.wcx --quality 70
expect 0 "" "$wcodec" encode -q "$image" dct.wcx --transform dct --quality 70
expect 0 "" "$wcodec" encode -q "$image" lot.wcx --transform lot --quality 70
for f in ll w97 dct lot; do
  for ext in png ppm tif; do
    expect 0 "strips of [0-9]+ rows" "$wcodec" decode -v $f.wcx s_$f.$ext --threads 1
    expect 0 "" sh -c "\"$wcodec\" decode -q - w_$f.$ext < $f.wcx"
    cmp -s s_$f.$ext w_$f.$ext || fail "$f.$ext: the streamed decode differs from the whole one"
  done
done
# Damage: a flipped byte in the data (a CRC mismatch), a cut file.
size=$(stat -c %s ll.wcx)
cp ll.wcx flip.wcx
printf '\xff' | dd of=flip.wcx bs=1 seek=$((size / 2)) conv=notrunc status=none
expect 1 "CRC mismatch" "$wcodec" decode flip.wcx bad.png
head -c $((size - 100)) ll.wcx >cut.wcx
expect 1 "" "$wcodec" decode cut.wcx bad.png
expect 1 "needs about" "$wcodec" decode ll.wcx bad.png --max-memory 100000
[ -e bad.png ] && fail "a failed decode left bad.png"
echo keep >old.png
expect 1 "CRC mismatch" "$wcodec" decode flip.wcx old.png
[ "$(cat old.png)" = keep ] || fail "a failed decode replaced old.png"
ls | grep -q wcodec-tmp && fail "a temporary file was left behind"
exit 0
