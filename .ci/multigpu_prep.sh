#!/usr/bin/env bash
# Fills .deps/ (ignored) with what .ci/multigpu.sh needs on a GPU machine
# that cannot install anything: the Kodak images (.deps/kodak), cmocka
# (.deps/cmocka) and libtiff with the libraries it loads (.deps/tiff),
# unpacked from Debian packages. Run it here, on a machine with apt, in the
# checkout the GPU machine gets, then carry .deps with the run.
#   usage: .ci/multigpu_prep.sh [KODAK_DIR, default ../shared/corpus/kodak]
set -euo pipefail
cd "$(dirname "$0")/.."
src="${1:-../shared/corpus/kodak}"
mkdir -p .deps/kodak .deps/debs
cp "$src"/kodim*.png .deps/kodak/
echo "kodak: $(ls .deps/kodak | wc -l) images in .deps/kodak"
cd .deps/debs
apt-get download -q libcmocka0 libcmocka-dev libtiff6 libtiff-dev libjpeg62-turbo libjbig0 \
  libdeflate0 liblerc4 libwebp7 >/dev/null
cd ../..
for d in cmocka tiff; do rm -rf ".deps/$d"; mkdir -p ".deps/$d"; done
for f in .deps/debs/*.deb; do
  case "$(basename "$f")" in
    libcmocka*) dpkg -x "$f" .deps/cmocka ;;
    *) dpkg -x "$f" .deps/tiff ;;
  esac
done
du -sh .deps
