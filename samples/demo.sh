#!/usr/bin/env bash
# The main job: build wcodec, then compress a Kodak photograph losslessly and
# at 1 bit per pixel, decompress both, and print ratio, bpp and PSNR.
#   usage: samples/demo.sh [IMAGE]     (PNG, TIFF, PGM or PPM; a relative
#   path is taken from where you run it)
# Without IMAGE: kodim23 from ../shared/corpus/kodak beside the clone, or
# its 256x192 crop in tests/data/kodak when the corpus is not there.
set -euo pipefail
here="$PWD"
cd "$(dirname "$0")/.."
repo="$PWD"
if [ $# -gt 0 ]; then
  case "$1" in /*) img="$1" ;; *) img="$here/$1" ;; esac
  [ -f "$img" ] || { echo "demo: no such file: $1" >&2; exit 1; }
elif [ -f "$repo/../shared/corpus/kodak/kodim23.png" ]; then
  img="$repo/../shared/corpus/kodak/kodim23.png"
else
  img="$repo/tests/data/kodak/kodim23.png"
  echo "demo: ../shared/corpus/kodak not found; using the crop $img"
fi
samples/deps.sh
echo "demo: building wcodec in build/ (the first build takes a minute or two)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
# Progress on one line: cmake's percentage, then the file it compiles.
cmake --build build -j"$(nproc)" --target wcodec 2>&1 | {
  if [ -t 1 ]; then
    while IFS= read -r line; do
      case "$line" in \[*%\]*) printf '\r\033[K  %s' "${line:0:100}" ;; *error*|*Error*) printf '\n%s\n' "$line" ;; esac
    done
    printf '\r\033[K'
  else
    grep -E '^\[ *(25|50|75|100)%\]|error' || true
  fi
}
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "demo: the build failed" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
w="$repo/build/programs/wcodec"
# In a scratch folder, with the image under its own name, so the lines
# read as they do in the README.
name=$(basename "$img")
ln -s "$img" "$out/$name"
cd "$out"
$w encode "$name" lossless.wcx
$w decode lossless.wcx lossless.png
$w compare "$name" lossless.png | grep -E "PSNR colour|max error"
$w encode "$name" lossy.wcx --bpp 1.0
$w decode lossy.wcx lossy.png
$w compare "$name" lossy.png | grep -E "PSNR colour|SSIM"
