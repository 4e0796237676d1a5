#!/usr/bin/env bash
# cppcheck over wcodec's C sources (library, command, tools, tests, fuzz
# targets); any finding fails. Checks: warning, performance, portability
# (the style class is advice, not defects, and is left out). A false
# positive is suppressed where it occurs, with a comment saying why
# (/* cppcheck-suppress id */ above the line, honoured by --inline-suppr).
#   usage: .ci/cppcheck.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/need.sh
ci_need cppcheck
# One false positive is suppressed here rather than in its file:
# transform/lot8.c's memcpy(hq, hq + 4, 4 floats) copies [4, 8) to [0, 4),
# which do not overlap; cppcheck 2.10 reports them as overlapping.
cppcheck --quiet --std=c11 --enable=warning,performance,portability \
  --inline-suppr --error-exitcode=1 -j"$(nproc)" \
  --suppress=overlappingWriteFunction:transform/lot8.c \
  -D__GNUC__ -D__x86_64__ -DWC_CORPUS_DIR='""' -DWC_TESTS_DIR='""' -DWCODEC_EXE='""' \
  -Icommon -Istage -Icodec -Iimageio -Iprograms -Icontainer -Ientropy -Itransform -Itests \
  common stage codec imageio programs container entropy transform tests samples bench cuda/cuda_absent.c
echo "cppcheck: clean"
