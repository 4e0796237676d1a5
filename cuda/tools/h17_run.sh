#!/usr/bin/env bash
# h17 (issue 17 item 2): int16 LL work planes for the 5/3 on 8-bit samples,
# checked and timed in one device call: build, the gpu tests that cover
# the forward's paths (CPU = GPU bytes), memcheck, then the DWT rows with
# int16 and int32 (WCG_LL32=1) planes, and the chain's lossless row both ways.
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/.deps/tiff/usr/lib/x86_64-linux-gnu:$PWD/.deps/cmocka/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
date; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
BD=/tmp/b17; t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
if [ ! -x $BD/cuda/wcodec_gpu_bench ] || [ "${REBUILD:-1}" = 1 ]; then
  timeout 40 cmake -S . -B $BD -DCMAKE_BUILD_TYPE=Release -DWCODEC_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMOCKA_ROOT=$PWD/.deps/cmocka -DWC_CORPUS_DIR=$PWD/.deps/kodak \
    -DTIFF_INCLUDE_DIR=$PWD/.deps/tiff/usr/include/x86_64-linux-gnu \
    -DTIFF_LIBRARY=$PWD/.deps/tiff/usr/lib/x86_64-linux-gnu/libtiff.so > $OUT/cfg.txt 2>&1
  timeout 200 cmake --build $BD -j16 --target test_cuda_backend wcodec_gpu_bench test_cuda_strips \
    test_cuda_pcie_strips wcodec_chain_bench > $OUT/build.txt 2>&1 || { tail -40 $OUT/build.txt; exit 1; }
  el build
fi
T=$BD/tests/gpu; [ -x $T/test_cuda_backend ] || T=$(dirname $(find $BD -name test_cuda_backend -type f | head -1))
G=$BD/cuda/wcodec_gpu_bench
timeout 60 $T/test_cuda_backend > $OUT/test_backend.txt 2>&1; el "test_cuda_backend rc $?"; grep -E "PASSED|FAILED|rror" $OUT/test_backend.txt | head -8
timeout 25 $G --sizes 8192 --bits 8 > $OUT/bench8a.txt 2>&1; el "bench 8 rc $?"; cat $OUT/bench8a.txt | grep -E "^\||floor|53|97" | head -30
timeout 25 $G --sizes 8192 --bits 16 > $OUT/bench16a.txt 2>&1; el "bench 16 rc $?"
WCG_LL32=1 timeout 25 $G --sizes 8192 --bits 8 > $OUT/bench8_ll32.txt 2>&1; el "bench 8 ll32 rc $?"
timeout 25 $G --sizes 8192 --bits 8 > $OUT/bench8b.txt 2>&1; el "bench 8 again rc $?"
WCG_LL32=1 timeout 40 $T/test_cuda_backend > $OUT/test_backend_ll32.txt 2>&1; el "test_cuda_backend WCG_LL32=1 rc $?"
for t in test_cuda_strips test_cuda_pcie_strips; do
  timeout 30 $T/$t > $OUT/$t.txt 2>&1; el "$t rc $?"; grep -E "PASSED|FAILED" $OUT/$t.txt | head -3
done
WC_TEST_STRIDE=13 WC_TEST_SKIP='*large*' timeout 60 compute-sanitizer --tool memcheck $T/test_cuda_backend > $OUT/memcheck.txt 2>&1
el "memcheck rc $?"; tail -3 $OUT/memcheck.txt
CB=$BD/cuda/wcodec_chain_bench
for v in 0 1 0 1; do
  if [ $v = 1 ]; then export WCG_LL32=1; else unset WCG_LL32; fi
  WC_BENCH_ONLY=lossless timeout 25 $CB .deps/kodak --no-batch --reps 5 > $OUT/chain_ll32_$v.$RANDOM.txt 2>&1
  el "chain WCG_LL32=$v rc $?"
done
unset WCG_LL32
grep -h -E "^\| lossless" $OUT/chain_ll32_* | head
el done
