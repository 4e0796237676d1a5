#!/usr/bin/env bash
# The whole test suite: configure, build, run every test with ctest. GPU
# tests skip (with a message) where there is no CUDA device.
#   usage: tests/run.sh [extra cmake options]
set -euo pipefail
cd "$(dirname "$0")/.."
samples/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$(nproc)"
cd build && ctest --output-on-failure -j"$(nproc)"
