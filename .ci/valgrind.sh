#!/usr/bin/env bash
# valgrind memcheck on round trips through the wcodec command: encode a
# Kodak image (lossless; lossy 9/7; DCT with deflate), inspect it, decode
# it, and check the lossless one comes back exact. Any memory error or
# leak fails (--error-exitcode=1 --leak-check=full).
#   usage: [KODAK_DIR=...] .ci/valgrind.sh
# The Kodak images are looked for in ../shared/corpus/kodak from the repo
# root (where CI has them) unless KODAK_DIR says otherwise; a clone alone
# uses the ones it ships in tests/data/kodak.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/need.sh
ci_need_build
ci_need valgrind

kodak="${KODAK_DIR:-../shared/corpus/kodak}"
[ -n "${KODAK_DIR:-}" ] || [ -f "$kodak/kodim23.png" ] || kodak=tests/data/kodak
image="$kodak/kodim23.png"
[ -f "$image" ] || { echo "valgrind.sh: no Kodak image at $image (set KODAK_DIR)" >&2; exit 1; }

# A plain optimised build with debug information, so reports have lines.
cmake -S . -B build-valgrind -DWCODEC_CUDA=OFF -DWCODEC_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-valgrind -j"$(nproc)" --target wcodec
wcodec="$PWD/build-valgrind/programs/wcodec"
work="$PWD/build-valgrind/valgrind-run"
rm -rf "$work" && mkdir -p "$work"

# Memory errors and leaks exit with VG_CODE (1 unless set), so a command
# that should succeed fails the script on either.
vg() {
  echo "valgrind: wcodec $*" >&2
  valgrind --quiet --error-exitcode="${VG_CODE:-1}" --leak-check=full \
    --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
    --track-origins=yes "$wcodec" "$@"
}

vg encode -q --threads 2 "$image" "$work/lossless.wcx"
vg info "$work/lossless.wcx" >/dev/null
vg decode -q --threads 2 "$work/lossless.wcx" "$work/lossless.png"
vg encode -q --quality 75 "$image" "$work/lossy97.wcx"
vg decode -q "$work/lossy97.wcx" "$work/lossy97.ppm"
vg encode -q --transform dct --entropy deflate --quality 60 "$image" "$work/dct.wcx"
vg decode -q "$work/dct.wcx" "$work/dct.png"
# A damaged file: refused cleanly (the command's status 1, not memcheck's
# 99), with the place named, and no output written.
head -c 5000 "$work/lossless.wcx" >"$work/cut.wcx"
rc=0
VG_CODE=99 vg decode -q "$work/cut.wcx" "$work/cut.png" 2>"$work/cut.err" || rc=$?
if [ "$rc" -ne 1 ] || [ -e "$work/cut.png" ] || ! grep -q "only [0-9]* left" "$work/cut.err"; then
  echo "valgrind.sh: the truncated file gave status $rc:" >&2
  cat "$work/cut.err" >&2
  exit 1
fi
grep -q "max error   0$" <("$wcodec" compare "$image" "$work/lossless.png") ||
  { echo "valgrind.sh: the lossless round trip is not exact" >&2; exit 1; }
echo "valgrind: clean"
