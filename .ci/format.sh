#!/usr/bin/env bash
# Every C, header and CUDA source of the tree is as .clang-format says
# (clang-format 14, Debian 12's): a drifted file fails CI with its name.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/need.sh
command -v clang-format >/dev/null || ci_need clang-format
git ls-files '*.c' '*.h' '*.cu' '*.cuh' | xargs clang-format --dry-run -Werror
echo "clang-format: $(git ls-files '*.c' '*.h' '*.cu' '*.cuh' | wc -l) files clean"
