#!/usr/bin/env bash
# The whole test suite under AddressSanitizer (with LeakSanitizer) and
# UBSan: configure build-asan with -DWCODEC_SANITIZE=ON (CPU only), build,
# run ctest. Any sanitizer report fails its test (-fno-sanitize-recover,
# halt_on_error), so the script fails.
#   usage: .ci/sanitize.sh            (from anywhere; works in the repo root)
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/need.sh
ci_need_build
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
cmake -S . -B build-asan -DWCODEC_SANITIZE=ON -DWCODEC_CUDA=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-asan -j"$(nproc)"
cd build-asan && ctest --output-on-failure -j"$(nproc)"
