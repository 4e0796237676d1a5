#!/usr/bin/env bash
# Installs what building and testing wcodec needs on Debian/Ubuntu, when it
# is missing. Called by samples/demo.sh and tests/run.sh; safe to run again.
set -euo pipefail
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v cc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
# Open MPI: the command's batches across ranks and hosts (WCODEC_MPI=AUTO
# builds them when found) and their test (tests/spread/cli_mpi.cmake).
for pkg in libpng-dev libtiff-dev zlib1g-dev libcmocka-dev pkg-config libopenmpi-dev openmpi-bin; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${need[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
