#!/usr/bin/env bash
# The README's crops: one Kodak image at 0.25 bpp through the DWT 9/7, the
# DCT and the LOT, the same region of each enlarged 3x beside the original,
# so the blocking of the DCT (or its absence) can be seen.
#   usage: samples/make-crops.sh [IMAGE.png] [OUT_DIR]   (after a build in build/)
set -euo pipefail
cd "$(dirname "$0")/.."
img=${1:-../shared/corpus/kodak/kodim23.png}
out=${2:-samples/results/crops}
w=build/programs/wcodec
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in dwt dct lot; do
  $w encode "$img" "$tmp/$t.wcx" --transform "$t" --bpp 0.25 -q
  $w compare "$img" "$tmp/$t.wcx" | awk -v t="$t" '/PSNR colour/ {printf "%s: %s dB\n", t, $3}'
done
build/samples/montage "$out/kodim23-0.25bpp.png" 300 100 128 96 3 \
  "$img" "$tmp/dwt.wcx" "$tmp/dct.wcx" "$tmp/lot.wcx"
echo "wrote $out/kodim23-0.25bpp.png (original, DWT 9/7, DCT, LOT)"
