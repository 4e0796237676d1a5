#!/usr/bin/env bash
# Issue 18 on a machine with several NVIDIA GPUs (an nvidia-h200-x2): a CUDA
# build, the multi-device tests, and the 960-image batch (24 Kodak images x
# 40) on one GPU, then on all of them, in memory (bench_devices) and through
# the command (wcodec encode ... --out-dir, --devices 0 vs all), with images
# per second, the ratio, and whether every file came out the same. Needs no
# network: what the machine lacks comes from .deps/ (.ci/multigpu_prep.sh
# fills it on a machine with apt). About 3-5 minutes on 2 H200s.
#   usage: [OUT=dir] [KODAK=dir] [BUILD_DIR=dir] [REPEAT=40] .ci/multigpu.sh [CUDA architectures, default 90]
set -uo pipefail
cd "$(dirname "$0")/.."
arch="${1:-90}"
b="${BUILD_DIR:-build-multigpu}"
out="${OUT:-$b/logs}"
mkdir -p "$out"
t_start=$(date +%s)
say() { echo "$@" | tee -a "$out/summary.txt"; }

# What this machine lacks, from .deps (see .ci/multigpu_prep.sh).
extra=()
. .ci/gpu_deps.sh
kodak="${KODAK:-}"
for d in ../shared/corpus/kodak .deps/kodak .gpuwork/kodak; do
  [ -z "$kodak" ] && [ -e "$d/kodim01.png" ] && kodak="$d"
done
if [ -z "$kodak" ]; then
  echo "multigpu.sh: no Kodak images: set KODAK=dir, or carry .deps/kodak (.ci/multigpu_prep.sh)"
  exit 1
fi
kodak="$(cd "$kodak" && pwd)"

nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$out/gpus.txt"
ngpu=$(nvidia-smi -L | grep -c '^GPU')
say "GPUs: $ngpu; cores: $(nproc); Kodak: $kodak ($(ls "$kodak"/kodim*.png | wc -l) images)"

cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release -DWCODEC_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="$arch" -DWC_CORPUS_DIR="$kodak" "${extra[@]}" > "$out/configure.log" 2>&1 \
  || { tail -30 "$out/configure.log"; exit 1; }
grep -E "wcodec:" "$out/configure.log"
cmake --build "$b" -j"$(nproc)" > "$out/build.log" 2>&1 \
  || { grep -E "error|Error" "$out/build.log" | head -30; exit 1; }
say "build: $(( $(date +%s) - t_start )) s"
# Where the programs are (the command is in programs/, bench_devices in bench/).
wcodec=$(find "$b" -name wcodec -type f -perm -u+x | head -1)
bench=$(find "$b" -name bench_devices -type f -perm -u+x | head -1)

# The tests: the multi-device ones first (their verdicts in the summary),
# then the whole suite.
(cd $b && timeout 300 ctest --output-on-failure -R 'test_devices|cli_multi_gpu|cli_devices|cli_mpi|test_cli_share') \
  > "$out/ctest-devices.log" 2>&1
say "$(grep -E '^ *[0-9]+/[0-9]+ Test' "$out/ctest-devices.log")"
(cd $b && timeout 400 ctest --output-on-failure -j8 -E 'test_devices|cli_multi_gpu') > "$out/ctest-all.log" 2>&1
say "whole suite: $(grep -E 'tests passed' "$out/ctest-all.log")"
say "tests: $(( $(date +%s) - t_start )) s"

# In memory: 960 images on GPU 0, then on all (same workers), 3 runs each.
for mode in lossless lossy; do
  opts=()
  [ $mode = lossy ] && opts=(--quality 75)
  say "== bench_devices, $mode"
  timeout 300 "$bench" "$kodak" --repeat "${REPEAT:-40}" --runs 3 "${opts[@]}" 2>&1 \
    | tee "$out/bench_devices-$mode.txt" | tee -a "$out/summary.txt"
done

# Through the command: 960 files (links to the 24, 40 times) into a folder,
# with --devices 0 and with all; the folders must hold the same bytes.
batch=$b/batch
rm -rf "$batch" && mkdir -p "$batch/in"
for r in $(seq -w 1 "${REPEAT:-40}"); do
  for f in "$kodak"/kodim*.png; do ln -s "$f" "$batch/in/$(basename "$f" .png)_$r.png"; done
done
n=$(ls "$batch/in" | wc -l)
for mode in lossless lossy; do
  opts=()
  [ $mode = lossy ] && opts=(--quality 75)
  say "== wcodec encode, $n files, $mode"
  declare -A rate=()
  ok=1
  for devs in 0 all; do
    rm -rf "$batch/out-$devs"
    t0=$(date +%s.%N)
    if "$wcodec" encode "$batch/in" --out-dir "$batch/out-$devs" --devices $devs "${opts[@]}" \
         > "$out/cli-$mode-$devs.txt" 2>&1; then
      t1=$(date +%s.%N)
      rate[$devs]=$(awk "BEGIN { printf \"%.1f\", $n / ($t1 - $t0) }")
      say "--devices $devs: ${rate[$devs]} images/s; $(tail -1 "$out/cli-$mode-$devs.txt")"
    else
      ok=0
      say "--devices $devs: FAILED: $(tail -3 "$out/cli-$mode-$devs.txt")"
    fi
  done
  if [ $ok = 1 ]; then
    same=$(diff -rq "$batch/out-0" "$batch/out-all" > /dev/null && echo yes || echo NO)
    say "ratio all/0: $(awk "BEGIN { printf \"%.2f\", ${rate[all]} / ${rate[0]} }")x; files identical: $same"
  fi
done
rm -rf "$batch"
say "total: $(( $(date +%s) - t_start )) s"
