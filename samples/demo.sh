#!/usr/bin/env bash
# The main job: build wcodec, then compress a Kodak photograph losslessly and
# at 1 bit per pixel, decompress both, and print ratio, bpp and PSNR.
#   usage: samples/demo.sh [IMAGE.png]
set -euo pipefail
cd "$(dirname "$0")/.."
samples/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target wcodec >/dev/null
img=${1:-../shared/corpus/kodak/kodim23.png}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
w=build/programs/wcodec
$w encode "$img" "$out/lossless.wcx"
$w decode "$out/lossless.wcx" "$out/lossless.png"
$w compare "$img" "$out/lossless.png" | grep -E "PSNR colour|max error"
$w encode "$img" "$out/lossy.wcx" --bpp 1.0
$w decode "$out/lossy.wcx" "$out/lossy.png"
$w compare "$img" "$out/lossy.png" | grep -E "PSNR colour|SSIM"
