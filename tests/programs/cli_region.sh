#!/usr/bin/env bash
# cli_region.sh -- wcodec decode --region and --reduce (issue 15): a region
# is byte for byte the crop of the whole decode (lossless and 9/7), the
# whole region is the whole image, a reduced image has the sides rounded
# up, both combine, and bad values exit 1 with a message naming them.
#   usage: cli_region.sh WCODEC IMAGE.png WORK_DIR
set -uo pipefail
wcodec="$1" image="$2" work="$3"
. "$(dirname "$0")/cli_lib.sh" "$work"
# header_len FILE: bytes of a binary PPM's header (3 lines).
header_len() { head -n 3 "$1" | wc -c; }
# size FILE: "W H" of a PPM.
size() { sed -n 2p "$1"; }
# crop_equal FULL PART X Y: PART's rows are FULL's rows from X, Y.
crop_equal() {
  local full="$1" part="$2" x="$3" y="$4" W w h
  read -r W _ < <(size "$full")
  read -r w h < <(size "$part")
  local hf hp
  hf=$(header_len "$full")
  hp=$(header_len "$part")
  for ((j = 0; j < h; j++)); do
    cmp -s -n $((w * 3)) -i $((hf + ((y + j) * W + x) * 3)):$((hp + j * w * 3)) "$full" "$part" ||
      fail "$part: row $j differs from $full at $x,$((y + j))"
  done
}

for mode in "" "--quality 80"; do
  # shellcheck disable=SC2086
  expect 0 "" "$wcodec" encode -q "$image" img.wcx $mode --block 32
  expect 0 "" "$wcodec" decode -q img.wcx full.ppm
  read -r W H < <(size full.ppm)
  expect 0 "" "$wcodec" decode -q img.wcx all.ppm --region 0,0,$W,$H
  cmp -s full.ppm all.ppm || fail "the whole region is not the whole image ($mode)"
  for r in "0,0,1,1" "$((W - 1)),$((H - 1)),1,1" "37,11,64,40" "$((W - 50)),5,50,3" \
    "0,$((H - 7)),$W,7"; do
    expect 0 "" "$wcodec" decode -q img.wcx part.ppm --region "$r" --threads 2
    IFS=, read -r x y w h <<<"$r"
    [ "$(size part.ppm)" = "$w $h" ] || fail "--region $r gave $(size part.ppm)"
    crop_equal full.ppm part.ppm "$x" "$y"
  done
  expect 0 "" "$wcodec" decode -q img.wcx thumb.ppm --reduce 2
  [ "$(size thumb.ppm)" = "$(((W + 3) / 4)) $(((H + 3) / 4))" ] ||
    fail "--reduce 2 of ${W}x$H gave $(size thumb.ppm)"
  expect 0 "" "$wcodec" decode -q img.wcx tpart.ppm --reduce=2 --region=5,6,20,10
  crop_equal thumb.ppm tpart.ppm 5 6
  expect 0 "" "$wcodec" decode img.wcx tcuda.ppm --reduce 2 --backend cuda -v
  cmp -s thumb.ppm tcuda.ppm || fail "--backend cuda --reduce 2 differs from the cpu's"
  grep -q "decoded on the host" err.txt || fail "--backend cuda -v does not say the host decoded"
done

# Bad values: exit 1, a message naming the problem, no output file.
expect 1 "not inside the image" "$wcodec" decode img.wcx bad.ppm --region $W,0,1,1
expect 1 "not inside the image" "$wcodec" decode img.wcx bad.ppm --region 0,0,$((W + 1)),1
expect 1 "not inside the reduced image" "$wcodec" decode img.wcx bad.ppm --reduce 1 --region 0,0,$W,1
expect 1 "expected X,Y,W,H" "$wcodec" decode img.wcx bad.ppm --region 0,0,0,5
expect 1 "expected X,Y,W,H" "$wcodec" decode img.wcx bad.ppm --region 1,2,3
expect 1 "expected X,Y,W,H" "$wcodec" decode img.wcx bad.ppm --region -1,0,2,2
expect 1 "out of range" "$wcodec" decode img.wcx bad.ppm --reduce 9
expect 1 "" "$wcodec" decode img.wcx bad.ppm --reduce -1
# A region is bounded by its own need, not the whole decode's: a 1024x1024
# gray noise image (a 1 MB file; the whole decode needs about 13 MB), under
# a limit one byte short of the whole decode's need, refuses the whole
# decode and lets a small region and a reduced image through.
{
  printf 'P5\n1024 1024\n255\n'
  head -c 1048576 /dev/urandom
} >noise.pgm
expect 0 "" "$wcodec" encode -q noise.pgm noise.wcx
# (The whole decode in memory: from standard input; a file is decoded in
# strips, whose need is smaller still: cli_stream.sh.)
expect 1 "needs about" sh -c "\"$wcodec\" decode - bad.pgm --max-memory 1 < noise.wcx"
need=$(grep -Eo 'needs about [0-9]+' err.txt | grep -Eo '[0-9]+$')
[ -n "$need" ] || fail "no memory need in: $(cat err.txt)"
expect 1 "over the memory limit" sh -c "\"$wcodec\" decode - bad.pgm --max-memory $((need - 1)) < noise.wcx"
expect 0 "" "$wcodec" decode -q noise.wcx small.pgm --region 3,2,4,4 --max-memory $((need - 1))
expect 0 "" "$wcodec" decode -q noise.wcx thumb.pgm --reduce 2 --max-memory $((need - 1))
[ -e bad.pgm ] && fail "a refused decode left bad.pgm"
[ -e bad.ppm ] && fail "a refused decode left bad.ppm"
expect 0 "" "$wcodec" encode -q "$image" dct.wcx --transform dct --quality 80
expect 1 "DCT" "$wcodec" decode dct.wcx bad.ppm --reduce 1
expect 0 "" "$wcodec" decode -q dct.wcx dfull.ppm
expect 0 "" "$wcodec" decode -q dct.wcx dpart.ppm --region 13,9,30,21
crop_equal dfull.ppm dpart.ppm 13 9
echo "cli_region: ok"
