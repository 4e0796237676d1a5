#!/usr/bin/env bash
# The checks that need an NVIDIA GPU, for a machine that has one (CI has
# none): a CUDA build, the whole test suite including the `gpu` tests,
# compute-sanitizer memcheck and racecheck on the gpu tests (their large
# images skipped: the sanitizers are slow), and the
# benchmarks (GPU kernels, the whole codec on both backends beside nvJPEG,
# then the CPU codec). KODAK_DIR says where the Kodak PNGs are.
#   usage: [OUT=dir] [CMOCKA_ROOT=dir] [KODAK_DIR=dir] [GPU_STEPS="test sanitize bench"]
#          .ci/gpu.sh [CUDA architectures, default 90]
# KODAK_DIR (default ../shared/corpus/kodak) is also the tests' corpus.
# GPU_STEPS picks the steps after the build (default all three): the
# sanitizers alone take most of a 10-minute call on the H100, so a
# device session runs "test bench" in one call and "sanitize" in another
# on the same warm machine (the build is kept).
set -euo pipefail
cd "$(dirname "$0")/.."
arch="${1:-90}"
out="${OUT:-build-gpu/logs}"
mkdir -p "$out"
extra=()
kodak="${KODAK_DIR:-../shared/corpus/kodak}"
[ -d "$kodak" ] && extra+=("-DWC_CORPUS_DIR=$(cd "$kodak" && pwd)")
. .ci/gpu_deps.sh
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DWCODEC_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="$arch" "${extra[@]}" > "$out/configure.log"
cmake --build build-gpu -j"$(nproc)" > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
steps=" ${GPU_STEPS:-test sanitize bench} "
if [[ $steps == *" test "* ]]; then
  (cd build-gpu && ctest --output-on-failure -j4) 2>&1 | tee "$out/ctest.log" | tail -6
fi
sanitize_tests=""
[[ $steps == *" sanitize "* ]] && sanitize_tests="test_cuda_backend test_cuda_blocktx test_cuda_chain test_device_memory"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for t in $sanitize_tests; do
  bin=$(find build-gpu/tests/gpu build-gpu/cuda -name "$t" -type f | head -1)
  for tool in memcheck racecheck; do
    WC_TEST_STRIDE=13 WC_TEST_SKIP='*large*' "$sanitizer" --tool "$tool" --error-exitcode 1 "$bin" \
      > "$out/$t.$tool.log" 2>&1 && echo "$t $tool: clean" || { echo "$t $tool: FAILED"; tail -20 "$out/$t.$tool.log"; exit 1; }
  done
done
[[ $steps == *" bench "* ]] || exit 0
build-gpu/cuda/wcodec_gpu_bench --csv "$out/gpu_bench.csv" 2>&1 | tee "$out/gpu_bench.txt" | tail -40
if [ -d "$kodak" ]; then
  build-gpu/cuda/wcodec_chain_bench "$kodak" 2>&1 | tee "$out/chain_bench.txt"
  # the 8K rows again with format 2.0's tiled blocks (the GPU's faster decode)
  build-gpu/cuda/wcodec_chain_bench "$kodak" --no-batch --entropy huffman-tiles 2>&1 |
    tee "$out/chain_bench_tiles.txt"
  build-gpu/bench/bench_codec "$kodak" 4096 5 2>&1 | tee "$out/cpu_bench.txt"
fi
