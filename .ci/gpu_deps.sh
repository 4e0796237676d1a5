# gpu_deps.sh -- sourced by the GPU scripts (gpu.sh, multigpu.sh): a GPU
# machine may have no cmocka or libtiff and no network, so they come
# unpacked in .deps/ (made here by .ci/multigpu_prep.sh, carried there);
# adds their CMake options to the array `extra` and their libraries to
# LD_LIBRARY_PATH, only where the system lacks them.
cmocka="${CMOCKA_ROOT:-$PWD/.deps/cmocka}"
if [ -d "$cmocka/usr" ] && ! [ -e /usr/include/cmocka.h ]; then
  extra+=("-DCMOCKA_ROOT=$cmocka")
  export LD_LIBRARY_PATH="$cmocka/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
fi
tiff="$PWD/.deps/tiff"
if ! [ -e /usr/include/x86_64-linux-gnu/tiff.h ] && ! [ -e /usr/include/tiff.h ] && [ -d "$tiff/usr" ]; then
  extra+=("-DTIFF_INCLUDE_DIR=$tiff/usr/include/x86_64-linux-gnu"
          "-DTIFF_LIBRARY=$tiff/usr/lib/x86_64-linux-gnu/libtiff.so")
  export LD_LIBRARY_PATH="$tiff/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
fi
