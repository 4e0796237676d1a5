#!/usr/bin/env bash
# run_consumers.sh -- installs the build into a scratch prefix and builds
# and runs a consumer project every way a user would link wcodec: CMake
# find_package with wcodec::wcodec (the default library),
# wcodec::wcodec_static and wcodec::wcodec_shared; pkg-config, shared and
# --static. Also checks what the package hands out: no libpng in
# `pkg-config --cflags wcodec` nor in libwcodec.so's NEEDED entries.
#   usage: run_consumers.sh BUILD_DIR WORK_DIR [C compiler]
set -euo pipefail
build="$1" work="$2" cc="${3:-cc}"
here="$(cd "$(dirname "$0")" && pwd)"
prefix="$work/prefix"
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
libdir="$(dirname "$(find "$prefix" -name wcodec.pc | head -1)")/.."
libdir="$(cd "$libdir" && pwd)"

fail() { echo "run_consumers: $*" >&2; exit 1; }

# What the package hands out.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cflags="$(pkg-config --cflags wcodec)"
echo "pkg-config --cflags wcodec: $cflags"
echo "pkg-config --static --libs wcodec: $(pkg-config --static --libs wcodec)"
case "$cflags" in *png*) fail "pkg-config --cflags names libpng: $cflags" ;; esac
needed="$(readelf -d "$libdir/libwcodec.so" | grep NEEDED || true)"
echo "$needed"
if grep -qi png <<<"$needed"; then fail "libwcodec.so needs libpng"; fi
if grep -q cudart <<<"$needed"; then fail "libwcodec.so needs a shared CUDA runtime"; fi

# CMake: each target, configured, built and run.
for target in wcodec::wcodec wcodec::wcodec_static wcodec::wcodec_shared; do
  dir="$work/cmake-${target#wcodec::}"
  cmake -S "$here/consumer" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
    -DWCODEC_TARGET="$target" >"$dir.log" 2>&1 || { cat "$dir.log"; fail "configure with $target"; }
  cmake --build "$dir" >>"$dir.log" 2>&1 || { cat "$dir.log"; fail "build with $target"; }
  echo -n "find_package, $target: "
  "$dir/consumer" || fail "the consumer linked with $target failed"
done

# pkg-config: shared, then fully static (libwcodec.a and Libs.private).
"$cc" "$here/consumer/consumer.c" -o "$work/pc-shared" $(pkg-config --cflags --libs wcodec)
echo -n "pkg-config, shared: "
LD_LIBRARY_PATH="$libdir" "$work/pc-shared" || fail "the pkg-config shared consumer failed"
"$cc" "$here/consumer/consumer.c" -o "$work/pc-static" $(pkg-config --cflags wcodec) \
  "$libdir/libwcodec.a" $(pkg-config --static --libs-only-other --libs-only-L wcodec) \
  $(pkg-config --static --libs-only-l wcodec | sed 's/-lwcodec//')
if readelf -d "$work/pc-static" | grep -q 'libwcodec'; then fail "the static consumer needs libwcodec.so"; fi
echo -n "pkg-config --static: "
"$work/pc-static" || fail "the pkg-config static consumer failed"
