#!/bin/bash
# measure_dwt.sh -- on a GPU machine, from the repository root: build
# (Release, sm_90, -lineinfo), run the gpu tests (bit-exactness against the
# CPU), time 8192^2 16-bit twice, and profile one launch of the level-1
# forward kernel (warp-state and source counters only) into stall hot
# spots. Output folder: $1 (default ./measure-out).
set -u
O=${1:-measure-out}
mkdir -p "$O/t"
B=build-gpu/cuda/wcodec_gpu_bench
if [ -d .deps/cmocka ]; then
  CM="-DCMOCKA_ROOT=$PWD/.deps/cmocka"
  export LD_LIBRARY_PATH=$PWD/.deps/cmocka/usr/lib/x86_64-linux-gnu
fi
{ cmake -S . -B build-gpu -DWCODEC_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_FLAGS=-lineinfo ${CM:-} && make -C build-gpu -j"$(nproc)"; } \
  > "$O/t/build.log" 2>&1 || { tail -40 "$O/t/build.log"; exit 1; }
(cd build-gpu && ctest -L gpu --output-on-failure) > "$O/t/ctest.txt" 2>&1
echo "ctest rc=$?" >> "$O/t/ctest.txt"
for i in 1 2; do
  $B --sizes 8192 --bits 16 > "$O/t/bench_perlevel_$i.txt" 2>&1
done
NCU="ncu --section WarpStateStats --section SourceCounters --section SpeedOfLight --section Occupancy --import-source yes --clock-control none -c 1 -f"
$NCU -k regex:fwd_level_kernel -o "$O/t/lvl1" $B --sizes 8192 --bits 16 --reps 1 > "$O/t/ncu_lvl1.log" 2>&1
for r in lvl1; do
  [ -f "$O/t/$r.ncu-rep" ] || continue
  ncu -i "$O/t/$r.ncu-rep" --page details > "$O/t/${r}_details.txt" 2>&1
  ncu -i "$O/t/$r.ncu-rep" --page source --csv --print-source sass > "$O/t/${r}_sass.csv" 2>&1
  python3 cuda/tools/ncu_hotspots.py "$O/t/${r}_sass.csv" 25 > "$O/t/${r}_hot.txt" 2>&1
done
rm -f "$O"/t/*.ncu-rep
tar -czf "$O/all.tgz" -C "$O" t
tail -3 "$O/t/ctest.txt"
for f in "$O"/t/bench_*.txt; do echo "$f"; grep " 53 " "$f"; done
grep -h -E "^    Duration|Achieved Occupancy|DRAM Throughput|Registers Per" "$O"/t/*_details.txt
