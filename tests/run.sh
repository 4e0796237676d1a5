#!/usr/bin/env bash
# The whole test suite: configure, build, run every test with ctest. GPU
# tests skip (with a message) where there is no CUDA device.
#   usage: tests/run.sh [extra cmake options]
set -euo pipefail
cd "$(dirname "$0")/.."
samples/deps.sh
if [ -d ../shared/corpus/kodak ]; then
  echo "tests/run.sh: corpus: the Kodak images in ../shared/corpus/kodak"
else
  echo "tests/run.sh: corpus: ../shared/corpus/kodak not found; the tests use the crops in tests/data/kodak"
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$(nproc)"
cd build && ctest --output-on-failure -j"$(nproc)"
