#!/usr/bin/env bash
# Builds zlib and libpng from Debian's source packages with the fuzzing
# flags (libFuzzer coverage, ASan, UBSan), static, into DIR/install, so that
# fuzz_png sees inside libpng and zlib: without this its coverage stops at
# the library's door (an uninstrumented system libpng) and libFuzzer can
# only guess which inputs reach new code in the decoder of the format.
#   usage: .ci/fuzz_deps.sh DIR     (prints DIR/install on success)
# The sources are the versions of this Debian release (apt-get source,
# which needs deb-src entries: added beside the deb ones when missing).
# A second run with the libraries already built does nothing.
set -euo pipefail
dir="$(mkdir -p "$1" && cd "$1" && pwd)"
prefix="$dir/install"
if [ -f "$prefix/lib/libpng16.a" ] && [ -f "$prefix/lib/libz.a" ]; then
  echo "$prefix"
  exit 0
fi
cd "$(dirname "$0")/.."
. .ci/need.sh
ci_need dpkg-dev
ci_need clang

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if ! apt-cache showsrc libpng1.6 2>/dev/null | grep -q '^Package:'; then
  src_list=/etc/apt/sources.list.d/debian-src.sources
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | $sudo tee "$src_list" >/dev/null
  else
    grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' | $sudo tee "${src_list%.sources}.list" >/dev/null
  fi
  $sudo apt-get update -qq
fi

# The release's own version of each (the security pocket's newest source
# may be missing from the mirror; the main pocket's is there).
cd "$dir"
if ! ls -d zlib-*/ >/dev/null 2>&1; then
  apt-get source -qq zlib >/dev/null
fi
if ! ls -d libpng1.6-*/ >/dev/null 2>&1; then
  for v in $(apt-cache showsrc libpng1.6 | sed -n 's/^Version: //p' | sort -Vr); do
    apt-get source -qq "libpng1.6=$v" >/dev/null 2>&1 && break
  done
fi
zsrc="$(ls -d "$dir"/zlib-*/ | head -1)"
psrc="$(ls -d "$dir"/libpng1.6-*/ | head -1)"

flags="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
(cd "$zsrc" && CC=clang CFLAGS="$flags" ./configure --static --prefix="$prefix" >/dev/null &&
  make -j"$(nproc)" libz.a >/dev/null && make install >/dev/null)
(cd "$psrc" && CC=clang CFLAGS="$flags" CPPFLAGS="-I$prefix/include" \
  LDFLAGS="-L$prefix/lib -fsanitize=address,undefined" \
  ./configure --disable-shared --enable-static --prefix="$prefix" >/dev/null &&
  make -j"$(nproc)" >/dev/null && make install >/dev/null)
echo "$prefix"
