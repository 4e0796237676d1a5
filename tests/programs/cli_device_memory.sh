#!/usr/bin/env bash
# cli_device_memory.sh -- wcodec encode (and decode) --max-device-memory: byte counts
# with K, M, G, T are taken, others (0, a negative, an unknown unit, too
# large) exit 1 naming the option; the CPU backend ignores the cap (the
# same file). Where the CUDA backend runs (exit 77 otherwise, a skip): a
# cap of 2M codes the image (2 levels, 32² blocks; its whole-image buffers
# need about 4 MB) by the strip path (-v says so) into the CPU's bytes;
# tests/gpu/test_cuda_strips.c covers many strips. The decode: the option
# taken (the CPU ignores it); on CUDA the least cap a strip needs decodes
# that file in strips into the CPU decoder's image
# (tests/gpu/test_cuda_strip_decode.c).
#   usage: cli_device_memory.sh WCODEC IMAGE.png WORK_DIR
set -uo pipefail
wcodec="$1" image="$2" work="$3"
. "$(dirname "$0")/cli_lib.sh" "$work"

for bad in 0 -5 4X 4GB "" 16777216T 99999999999999999999; do
  expect 1 "max-device-memory: expected a positive byte count" \
    "$wcodec" encode -q --backend cpu "$image" bad.wcx --max-device-memory "$bad"
  [ -e bad.wcx ] && fail "--max-device-memory '$bad' left an output"
done
expect 0 "" "$wcodec" encode -q --backend cpu "$image" cpu.wcx
for good in 1 4096 64K 16M 4g 1T; do
  expect 0 "" "$wcodec" encode -q --backend cpu "$image" capped.wcx --max-device-memory "$good"
  cmp -s cpu.wcx capped.wcx || fail "--max-device-memory $good changed the CPU backend's file"
done

# decode takes the option too; the CPU backend ignores it (the same image).
expect 0 "" "$wcodec" decode -q --backend cpu cpu.wcx cpu.ppm
expect 0 "" "$wcodec" decode -q --backend cpu cpu.wcx capped.ppm --max-device-memory 4K
cmp -s cpu.ppm capped.ppm || fail "decode --max-device-memory changed the CPU backend's image"
expect 1 "max-device-memory: expected a positive byte count" \
  "$wcodec" decode -q --backend cpu cpu.wcx bad.ppm --max-device-memory 4X
[ -e bad.ppm ] && fail "decode --max-device-memory 4X left an output"

if ! "$wcodec" encode -q --backend cuda "$image" cuda.wcx 2>/dev/null; then
  echo "no CUDA backend here: the strip encode is not run"
  exit 77
fi
expect 0 "" "$wcodec" encode -q --backend cpu "$image" cpu2.wcx --levels 2 --block 32
expect 0 "strips of" "$wcodec" encode -v --backend cuda "$image" strips.wcx \
  --levels 2 --block 32 --max-device-memory 2M
cmp -s cpu2.wcx strips.wcx || fail "the CUDA encode in strips differs from the CPU's file"
expect 1 "needs [0-9]+ bytes of device memory" \
  "$wcodec" encode -q --backend cuda "$image" tiny.wcx --max-device-memory 1K
# The decode in strips (cuda/strip_decode.cu): the CPU decoder's image.
expect 0 "" "$wcodec" decode -q --backend cpu cpu2.wcx cpu2.ppm
# The least a strip needs, from the refusal of a 1K cap (the decoder's
# Huffman tables alone take 2.2 MB); the whole image's buffers need more
# (about 4 MB for this 256x192 file), so that cap decodes in strips.
expect 1 "needs at least [0-9]+ bytes of device memory" \
  "$wcodec" decode -q --backend cuda cpu2.wcx tiny.ppm --max-device-memory 1K
[ -e tiny.ppm ] && fail "a refused decode in strips left an output"
least=$(sed -n 's/.*needs at least \([0-9]*\) bytes.*/\1/p' err.txt)
[ -n "$least" ] || fail "no least size in: $(cat err.txt)"
expect 0 "strips of" "$wcodec" decode -v --backend cuda cpu2.wcx strips.ppm --max-device-memory "$least"
cmp -s cpu2.ppm strips.ppm || fail "the CUDA decode in strips differs from the CPU's image"
expect 1 "needs at least [0-9]+ bytes of device memory" \
  "$wcodec" decode -q --backend cuda cpu2.wcx tiny.ppm --max-device-memory 1K
exit 0
