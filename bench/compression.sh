#!/bin/bash
# compression.sh -- wcodec's compression beside its peers, in one run:
#   lossy: mean RGB PSNR on Kodak at 0.25, 0.5, 1 and 2 bpp, and on how
#     many images wcodec 9/7 beats OpenJPEG 9/7 (with the Huffman coder and
#     with arithmetic coding, --entropy arith); every codec at or just
#     under each rate (wcodec --bpp, OpenJPEG -r, WebP -size; JPEG and
#     JPEG XL by a search on their quality/distance);
#   lossless: mean bpp on Kodak;
#   graphics: bytes per image of the synthetic set (bench/make_graphics)
#     against optipng -o2, lossless.
# The README's compression tables come from this script.
#
# usage: bench/compression.sh [--quick] [--graphics] [--jobs N] [--build DIR] [--kodak DIR] [--out DIR]
#   --quick    4 Kodak images (kodim01, 08, 15, 23) instead of 24
#   --graphics the graphics set only (no Kodak)
#   --jobs N   images coded at once (default 2)
#   --build    the build folder holding programs/wcodec and bench/make_graphics
#              (default build)
#   --kodak    the Kodak PNGs (default ../shared/corpus/kodak from the repository)
#   --out      where the CSVs and scratch files go (default a temporary folder)
# Peers (Debian): libopenjp2-tools openjph-tools webp libjxl-tools
# libjpeg-turbo-progs optipng. A peer that is missing is left out.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
KODAK=$ROOT/../shared/corpus/kodak
[ -d "$KODAK" ] || KODAK=$ROOT/../../shared/corpus/kodak # a worktree under wt/
QUICK=0
GRAPHICS_ONLY=0
JOBS=2
OUT=
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) QUICK=1 ;;
    --graphics) GRAPHICS_ONLY=1 ;;
    --jobs) JOBS=$2; shift ;;
    --build) BUILD=$2; shift ;;
    --kodak) KODAK=$2; shift ;;
    --out) OUT=$2; shift ;;
    *) echo "compression.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
W=$BUILD/programs/wcodec
MG=$BUILD/bench/make_graphics
for f in "$W" "$MG"; do
    [ -x "$f" ] || { echo "compression.sh: $f missing (cmake --build $BUILD)" >&2; exit 2; }
done
[ -d "$KODAK" ] || { echo "compression.sh: no Kodak folder $KODAK" >&2; exit 2; }
[ -n "$OUT" ] || OUT=$(mktemp -d)
mkdir -p "$OUT"
export W OUT
RATES="0.25 0.5 1 2"
export RATES

have() { command -v "$1" > /dev/null; }

# PSNR over the RGB channels of B against A.
psnr() { "$W" compare "$1" "$2" | awk '/PSNR colour/ { print $3 }'; }
export -f psnr

# Largest quality (integer lo..hi, larger = bigger file) whose file fits
# target bytes: enc Q OUTFILE encodes. Prints the quality or nothing.
search_int() {
    local lo=$1 hi=$2 target=$3 enc=$4 file=$5 best=
    while [ "$lo" -le "$hi" ]; do
        local mid=$(((lo + hi) / 2))
        $enc "$mid" "$file"
        if [ "$(stat -c %s "$file")" -le "$target" ]; then best=$mid; lo=$((mid + 1)); else hi=$((mid - 1)); fi
    done
    echo "$best"
}
export -f search_int

enc_jpeg() { cjpeg -optimize -quality "$1" -outfile "$2" "$IN_PPM" 2> /dev/null; }
# JPEG XL distance d = 25 / 2^(Q/16): Q 0..160 spans distance 25 .. 0.02.
enc_jxl() { cjxl -e 3 -d "$(awk -v q="$1" 'BEGIN { printf "%.4f", 25 / 2 ^ (q / 16) }')" "$IN_PPM" "$2" --quiet 2> /dev/null; }
export -f enc_jpeg enc_jxl

# One Kodak image: prints CSV rows codec,image,rate,bytes,psnr.
one_image() {
    local png=$1 b
    b=$(basename "$png" .png)
    local d=$OUT/work/$b
    mkdir -p "$d"
    export IN_PPM=$d/in.ppm
    "$W" encode "$png" "$d/in.wcx" -q && "$W" decode "$d/in.wcx" "$IN_PPM" -q
    local px
    px=$(head -c 64 "$IN_PPM" | awk 'NR == 2 { print $1 * $2 }')
    for r in $RATES; do
        local target
        target=$(awk -v r="$r" -v px="$px" 'BEGIN { printf "%d", r * px / 8 }')
        "$W" encode "$png" "$d/o.wcx" --strip --bpp "$r" -q && "$W" decode "$d/o.wcx" "$d/o.ppm" -q
        echo "wcodec 9/7,$b,$r,$(stat -c %s "$d/o.wcx"),$(psnr "$png" "$d/o.ppm")"
        "$W" encode "$png" "$d/o.wcx" --strip --bpp "$r" --entropy arith -q && "$W" decode "$d/o.wcx" "$d/o.ppm" -q
        echo "wcodec 9/7 arith,$b,$r,$(stat -c %s "$d/o.wcx"),$(psnr "$png" "$d/o.ppm")"
        "$W" encode "$png" "$d/o.wcx" --strip --bpp "$r" --transform dct -q && "$W" decode "$d/o.wcx" "$d/o.ppm" -q
        echo "wcodec DCT,$b,$r,$(stat -c %s "$d/o.wcx"),$(psnr "$png" "$d/o.ppm")"
        if have opj_compress; then
            local ratio
            ratio=$(awk -v r="$r" 'BEGIN { print 24 / r }')
            opj_compress -i "$IN_PPM" -o "$d/o.j2k" -I -r "$ratio" > /dev/null
            opj_decompress -i "$d/o.j2k" -o "$d/o.ppm" > /dev/null
            echo "OpenJPEG 9/7,$b,$r,$(stat -c %s "$d/o.j2k"),$(psnr "$png" "$d/o.ppm")"
            opj_compress -i "$IN_PPM" -o "$d/o.j2k" -r "$ratio" > /dev/null
            opj_decompress -i "$d/o.j2k" -o "$d/o.ppm" > /dev/null
            echo "OpenJPEG 5/3,$b,$r,$(stat -c %s "$d/o.j2k"),$(psnr "$png" "$d/o.ppm")"
        fi
        if have cwebp; then
            cwebp -quiet -m 6 -size "$target" "$IN_PPM" -o "$d/o.webp" 2> /dev/null || cwebp -quiet -m 6 -size "$target" "$png" -o "$d/o.webp"
            dwebp -quiet "$d/o.webp" -ppm -o "$d/o.ppm"
            echo "WebP,$b,$r,$(stat -c %s "$d/o.webp"),$(psnr "$png" "$d/o.ppm")"
        fi
        if have cjpeg; then
            local q
            q=$(search_int 1 100 "$target" enc_jpeg "$d/o.jpg")
            if [ -n "$q" ]; then
                enc_jpeg "$q" "$d/o.jpg" && djpeg -ppm -outfile "$d/o.ppm" "$d/o.jpg"
                echo "JPEG,$b,$r,$(stat -c %s "$d/o.jpg"),$(psnr "$png" "$d/o.ppm")"
            fi
        fi
        if have cjxl; then
            local q
            q=$(search_int 0 160 "$target" enc_jxl "$d/o.jxl")
            if [ -n "$q" ]; then
                enc_jxl "$q" "$d/o.jxl" && djxl "$d/o.jxl" "$d/o.ppm" --quiet 2> /dev/null
                echo "JPEG XL,$b,$r,$(stat -c %s "$d/o.jxl"),$(psnr "$png" "$d/o.ppm")"
            fi
        fi
    done
    # Lossless: bytes only (each peer's own check of exactness is trusted,
    # wcodec's is compared).
    "$W" encode "$png" "$d/l.wcx" --strip -q && "$W" decode "$d/l.wcx" "$d/l.ppm" -q
    "$W" compare "$png" "$d/l.ppm" | grep -q "max error *0$" || echo "compression.sh: $b: wcodec lossless is not exact" >&2
    echo "wcodec,$b,lossless,$(stat -c %s "$d/l.wcx"),"
    "$W" encode "$png" "$d/l.wcx" --strip --entropy arith -q && "$W" decode "$d/l.wcx" "$d/l.ppm" -q
    "$W" compare "$png" "$d/l.ppm" | grep -q "max error *0$" || echo "compression.sh: $b: wcodec arith lossless is not exact" >&2
    echo "wcodec arith,$b,lossless,$(stat -c %s "$d/l.wcx"),"
    if have opj_compress; then
        opj_compress -i "$IN_PPM" -o "$d/l.j2k" > /dev/null
        echo "OpenJPEG 5/3,$b,lossless,$(stat -c %s "$d/l.j2k"),"
    fi
    if have ojph_compress; then
        ojph_compress -i "$IN_PPM" -o "$d/l.j2c" -reversible true > /dev/null
        echo "OpenJPH,$b,lossless,$(stat -c %s "$d/l.j2c"),"
    fi
    if have cwebp; then
        cwebp -quiet -lossless -z 9 "$IN_PPM" -o "$d/l.webp" 2> /dev/null || cwebp -quiet -lossless -z 9 "$png" -o "$d/l.webp"
        echo "WebP -z 9,$b,lossless,$(stat -c %s "$d/l.webp"),"
    fi
    if have cjxl; then
        cjxl -d 0 -e 3 "$IN_PPM" "$d/l.jxl" --quiet 2> /dev/null
        echo "JPEG XL -e 3,$b,lossless,$(stat -c %s "$d/l.jxl"),"
    fi
    if have optipng; then
        cp "$png" "$d/l.png" && optipng -quiet -o2 "$d/l.png"
        echo "PNG (optipng -o2),$b,lossless,$(stat -c %s "$d/l.png"),"
    fi
    rm -rf "$d"
}
export -f one_image have

if [ "$GRAPHICS_ONLY" = 0 ]; then
if [ "$QUICK" = 1 ]; then
    IMAGES=$(for n in 01 08 15 23; do echo "$KODAK/kodim$n.png"; done)
else
    IMAGES=$(ls "$KODAK"/*.png)
fi
echo "compression.sh: $(echo "$IMAGES" | wc -l) Kodak image(s), $JOBS job(s), $(uname -m), $(nproc) core(s); CSVs in $OUT"
echo "$IMAGES" | xargs -P "$JOBS" -I{} bash -c 'one_image "$1" > "$OUT/$(basename "$1" .png).csv" 2>> "$OUT/stderr.log"' _ {}
grep "compression.sh" "$OUT/stderr.log" >&2 || true # the peers' chatter stays in the log
cat "$OUT"/kodim*.csv > "$OUT/kodak.csv"

echo
echo "Kodak lossy: mean RGB PSNR (dB) at or just under each rate"
echo
echo "| codec | 0.25 bpp | 0.5 | 1 | 2 |"
echo "| --- | --- | --- | --- | --- |"
awk -F, -v rates="$RATES" '
    $3 != "lossless" && $5 != "" { k = $1 SUBSEP $3; s[k] += $5; n[k]++; if (!($1 in seen)) { seen[$1] = 1; order[++m] = $1 } }
    $1 == "wcodec 9/7" && $3 == "lossless" { }
    $1 == "wcodec 9/7" { all[$2] = 1 }
    END {
        for (x in all) N++
        nr = split(rates, R, " ")
        for (i = 1; i <= m; i++) {
            line = "| " order[i]
            for (j = 1; j <= nr; j++) {
                k = order[i] SUBSEP R[j]
                line = line (n[k] ? sprintf(" | %.2f", s[k] / n[k]) : " | —")
                if (n[k] && n[k] < N) line = line sprintf(" (%d of %d)", n[k], N)
            }
            print line " |"
        }
    }' "$OUT/kodak.csv"
echo
echo "(n of N): the peer reached that rate (or decoded) on n images only; the mean is theirs."
echo
# wcodec 9/7 (Huffman, and arithmetic coding: entropy 3) against OpenJPEG
# 9/7, image by image.
for WC in "wcodec 9/7" "wcodec 9/7 arith"; do
awk -F, -v wc="$WC" '
    $1 == wc { w[$2, $3] = $5; r[$3] = 1 }
    $1 == "OpenJPEG 9/7" { o[$2, $3] = $5 }
    END {
        for (k in w) { split(k, a, SUBSEP); if (k in o) { t[a[2]]++; if (w[k] > o[k]) won[a[2]]++; d[a[2]] += w[k] - o[k] } }
        for (x in r) if (t[x]) printf "%s vs OpenJPEG 9/7 at %s bpp: ahead on %d of %d images, mean %+.2f dB\n", wc, x, won[x], t[x], d[x] / t[x]
    }' "$OUT/kodak.csv" | awk '{ for (i = 1; i < NF; i++) if ($i == "at") print $(i + 1), $0 }' | sort -g | cut -d' ' -f2-
done
echo
echo "Kodak lossless: mean bits per pixel"
echo
echo "| codec | bpp |"
echo "| --- | --- |"
awk -F, '$3 == "lossless" { s[$1] += $4 * 8 / 393216; n[$1]++; if (!($1 in seen)) { seen[$1] = 1; order[++m] = $1 } }
    END { for (i = 1; i <= m; i++) printf "| %s | %.3f |\n", order[i], s[order[i]] / n[order[i]] }' "$OUT/kodak.csv"

fi
echo
echo "Graphics set (bench/make_graphics), lossless: bytes"
echo
G=$OUT/graphics
# The sources in a folder of their own: a reused --out holds the decoded
# and optimised PNGs of the last run beside them.
rm -rf "$G"
mkdir -p "$G/src"
"$MG" "$G/src"
echo "| image | size | optipng -o2 | wcodec --levels 5 | wcodec (auto) | wcodec / PNG |"
echo "| --- | --- | ---: | ---: | ---: | ---: |"
won=0
total=0
for png in "$G"/src/*.png; do
    b=$(basename "$png" .png)
    "$W" encode "$png" "$G/$b.wcx" -q
    "$W" encode "$png" "$G/$b.l5.wcx" -q --levels 5
    "$W" decode "$G/$b.wcx" "$G/$b.dec.png" -q
    "$W" compare "$png" "$G/$b.dec.png" | grep -q "max error *0$" || echo "compression.sh: $b: wcodec lossless is not exact" >&2
    cp "$png" "$G/$b.opt.png"
    have optipng && optipng -quiet -o2 "$G/$b.opt.png"
    size=$("$W" info "$G/$b.wcx" | awk '/^image:/ { print $2 " " $3 " comp " $5 }')
    pb=$(stat -c %s "$G/$b.opt.png")
    wb=$(stat -c %s "$G/$b.wcx")
    total=$((total + 1))
    [ "$wb" -le "$pb" ] && won=$((won + 1))
    echo "| $b | $size | $pb | $(stat -c %s "$G/$b.l5.wcx") | $wb | $(awk -v w="$wb" -v p="$pb" 'BEGIN { printf "%.2f", w / p }') |"
done
echo
echo "wcodec at or under optipng -o2 on $won of $total graphics images"
