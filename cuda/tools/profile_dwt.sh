#!/bin/bash
# profile_dwt.sh -- on a GPU machine, from the repository root: build with
# -lineinfo, time the forward/inverse DWT, then profile ONE launch of the
# level-1 forward kernel with Nsight Compute (--set full, source
# imported) and write its stall hot spots per SASS instruction as text
# (the CSV export of the CUDA-line view carries no metrics in ncu 2025.3).
# Output folder: $1 (default ./profile-out).
#   cuda/tools/profile_dwt.sh [outdir]
# Clocks are left as the card has them (--clock-control none).
set -u
O=${1:-profile-out}
mkdir -p "$O/t"
B=build-gpu/cuda/wcodec_gpu_bench
if [ -d .deps/cmocka ]; then
  CM="-DCMOCKA_ROOT=$PWD/.deps/cmocka"
  export LD_LIBRARY_PATH=$PWD/.deps/cmocka/usr/lib/x86_64-linux-gnu
fi
{ cmake -S . -B build-gpu -DWCODEC_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_FLAGS=-lineinfo ${CM:-} && make -C build-gpu -j"$(nproc)" wcodec_gpu_bench; } \
  > "$O/t/build.log" 2>&1 || { tail -40 "$O/t/build.log"; exit 1; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > "$O/t/gpu.txt" 2>&1
$B --sizes 8192 --bits 16 > "$O/t/bench_perlevel.txt" 2>&1
NCU="ncu --set full --import-source yes --clock-control none -c 1 -f"
$NCU -k regex:fwd_level_kernel -o "$O/lvl1" $B --sizes 8192 --bits 16 --reps 1 > "$O/t/ncu_lvl1.log" 2>&1
for r in lvl1; do
  [ -f "$O/$r.ncu-rep" ] || continue
  ncu -i "$O/$r.ncu-rep" --page details --print-details all > "$O/t/${r}_details.txt" 2>&1
  ncu -i "$O/$r.ncu-rep" --page source --csv --print-source sass > "$O/t/${r}_sass.csv" 2> "$O/t/${r}_sass.err"
  python3 cuda/tools/ncu_hotspots.py "$O/t/${r}_sass.csv" 60 > "$O/t/${r}_sass_hot.txt" 2>&1
done
cat "$O"/t/*_hot.txt > "$O/hotspots.txt"
tar -czf "$O/all.tgz" -C "$O" t
cat "$O/t/gpu.txt" "$O/t/bench_perlevel.txt"
grep -h -E "Duration|Registers Per|Achieved Occupancy|DRAM Throughput|Memory Throughput|Local" \
  "$O"/t/*_details.txt | head -40
