#!/usr/bin/env bash
# compare-peers.sh -- wcodec against the installed peer codecs on the same
# images at the same rates: one CSV of every point, one Markdown table of the
# means, and PSNR/SSIM-vs-rate plots (drawn by `wcodec plot`).
#
# Every codec is optional; a missing one is skipped with a note. Debian
# packages: libopenjp2-tools (opj_compress), libjpeg-turbo-progs (cjpeg),
# webp (cwebp), libjxl-tools (cjxl), openjph-tools (ojph_compress).
#
# Rates are matched per image: OpenJPEG (-r) and wcodec (--bpp) have rate
# control of their own; for the others the quality knob is bisected to the
# highest setting whose file is at or under the target (or the lowest
# setting when even that is over: the table shows the rate reached). All
# quality numbers come from `wcodec compare` on the decoded PPM, so every
# codec is measured by the same code.
set -euo pipefail
export LC_ALL=C

usage() {
    cat <<EOF
usage: samples/compare-peers.sh [options] [IMAGES_DIR|FILES...]

Runs 8-bit RGB images (PNG/PPM; default: ../shared/corpus/kodak beside the
repository) through wcodec and the peer codecs found on PATH.

options:
  --rates R,...   target bits per pixel (default 0.25,0.5,1,2)
  --out DIR       results: peers.csv, peers-mean.csv, peers.md, psnr.svg,
                  ssim.svg (default samples/results/peers)
  --jobs N        images coded at once (default: all cores)
  --wcodec PATH   the wcodec command (default: \$WCODEC, build/programs/wcodec,
                  or wcodec on PATH)
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
ITER=8 # bisection steps: 1/256 of the knob's range, finer than a quality step

# ---- codecs: enc CODEC KNOB IN OUT prints the setting used; KNOB in [0,1]
# raises the rate as it grows. dec CODEC IN OUT.ppm decodes. --------------------

# Runs a peer's command silently (they chat on stderr: cjpeg's "Caution",
# progress lines), showing what it said only when it fails.
quiet() {
    local said
    if ! said=$("$@" 2>&1 >/dev/null); then
        echo "compare-peers: $1 failed: $said" >&2
        return 1
    fi
}

knob() { awk -v k="$1" -v lo="$2" -v hi="$3" -v log_="$4" 'BEGIN {
    if (log_) printf "%.5g", exp(log(lo) + k * (log(hi) - log(lo)));
    else printf "%d", lo + k * (hi - lo) + 0.5 }'; }

enc() {
    local codec=$1 k=$2 in=$3 out=$4 p
    case $codec in
    libjpeg) p=$(knob "$k" 1 100 0); quiet cjpeg -quality "$p" -optimize -outfile "$out" "$in" ;;
    libwebp) p=$(knob "$k" 0 100 0); quiet cwebp -m 6 -q "$p" "$in" -o "$out" ;;
    # JPEG XL's distance and HTJ2K's step fall as the rate rises: map k to them.
    libjxl) p=$(knob "$k" 25 0.05 1); quiet cjxl --num_threads=1 -d "$p" "$in" "$out" ;;
    openjph) p=$(knob "$k" 0.5 0.0002 1); quiet ojph_compress -i "$in" -o "$out" -qstep "$p" ;;
    esac
    echo "$p"
}

dec() {
    case $1 in
    wcodec) "$WCODEC" decode "$2" "$3" -q --threads 1 ;;
    openjpeg) quiet opj_decompress -i "$2" -o "$3" ;;
    libjpeg) quiet djpeg -pnm -outfile "$3" "$2" ;;
    libwebp) quiet dwebp "$2" -ppm -o "$3" ;;
    libjxl) quiet djxl "$2" "$3" --num_threads=1 ;;
    openjph) quiet ojph_expand -i "$2" -o "$3" ;;
    esac
}

bpp_of() { awk -v b="$(stat -c %s "$1")" -v p="$2" 'BEGIN { printf "%.6f", b * 8 / p }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# Bisects the knob of a codec without rate control: the largest knob whose
# file fits the target; the smallest knob when nothing fits. Leaves the
# chosen file at OUT and prints its setting.
search() {
    local codec=$1 rate=$2 in=$3 out=$4 pixels=$5 lo=0 hi=1 mid p best_p=""
    for ((i = 0; i < ITER; i++)); do
        mid=$(awk -v a="$lo" -v b="$hi" 'BEGIN { print (a + b) / 2 }')
        p=$(enc "$codec" "$mid" "$in" "$out.try")
        if le "$(bpp_of "$out.try" "$pixels")" "$rate"; then
            lo=$mid; best_p=$p; mv "$out.try" "$out"
        else
            hi=$mid
        fi
    done
    if [ -z "$best_p" ]; then best_p=$(enc "$codec" 0 "$in" "$out"); fi
    rm -f "$out.try"
    echo "$best_p"
}

# One image: every codec at every rate, CSV rows on stdout.
one_image() {
    local img=$1 t name w h comps pixels
    t=$(mktemp -d "$TMPROOT/img.XXXXXX")
    name=$(basename "$img")
    "$WCODEC" encode "$img" "$t/ref.wcx" -q --threads 1
    "$WCODEC" decode "$t/ref.wcx" "$t/ref.ppm" -q --threads 1
    read -r w h comps < <("$WCODEC" info "$t/ref.wcx" |
        sed -n 's/^image: *\([0-9]*\)x\([0-9]*\), \([0-9]*\) component.*, 8-bit$/\1 \2 \3/p')
    if [ "${comps:-0}" != 3 ]; then
        echo "compare-peers: $img: not 8-bit RGB, skipped" >&2
        rm -rf "$t"; return 0
    fi
    pixels=$((w * h))
    local rate codec out param m ratio
    for rate in ${RATES//,/ }; do
        for codec in $CODECS; do
            case $codec in
            wcodec) out=$t/o.wcx; param="--bpp $rate"
                "$WCODEC" encode "$t/ref.ppm" "$out" -q --threads 1 --bpp "$rate" ;;
            openjpeg) out=$t/o.j2k # -r is the compression ratio: raw bits over target bits
                ratio=$(awk -v c="$comps" -v r="$rate" 'BEGIN { printf "%.4g", c * 8 / r }')
                param="-I -r $ratio"
                quiet opj_compress -i "$t/ref.ppm" -o "$out" -I -r "$ratio" ;;
            *) out=$t/o.$codec; param=$(search "$codec" "$rate" "$t/ref.ppm" "$out" "$pixels") ;;
            esac
            dec "$codec" "$out" "$t/dec.ppm"
            m=$("$WCODEC" compare "$t/ref.ppm" "$t/dec.ppm" | awk '
                /^PSNR colour/ { p = $3 } /^PSNR Y/ { y = $3 } /^SSIM/ { s = $2 }
                END { print p "," y "," s }')
            echo "$codec,$name,$rate,\"$param\",$(stat -c %s "$out"),$(bpp_of "$out" "$pixels"),$m"
            rm -f "$t/dec.ppm"
        done
    done
    rm -rf "$t"
}

if [ "${1:-}" = "--one" ]; then # a worker started below through xargs: image number $2
    one_image "$(sed -n "$(($2 + 1))p" "$TMPROOT/images.txt")" > "$TMPROOT/rows/$(printf %05d "$2").csv"
    exit 0
fi

# ---- options, codecs found, the run ------------------------------------------------

RATES=0.25,0.5,1,2
OUT=$repo/samples/results/peers
JOBS=$(nproc 2>/dev/null || echo 1)
WCODEC=${WCODEC:-}
inputs=()
while [ $# -gt 0 ]; do
    case $1 in
    --rates) RATES=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --wcodec) WCODEC=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "compare-peers: unknown option $1" >&2; usage >&2; exit 1 ;;
    *) inputs+=("$1"); shift ;;
    esac
done
[ ${#inputs[@]} -gt 0 ] || inputs=("$repo/../shared/corpus/kodak")
if [ -z "$WCODEC" ]; then
    if [ -x "$repo/build/programs/wcodec" ]; then WCODEC=$repo/build/programs/wcodec
    else WCODEC=$(command -v wcodec || true); fi
fi
if [ -z "$WCODEC" ] || [ ! -x "$WCODEC" ]; then
    echo "compare-peers: no wcodec command (build it or pass --wcodec)" >&2
    exit 1
fi
WCODEC=$(cd "$(dirname "$WCODEC")" && pwd)/$(basename "$WCODEC")

images=()
for a in "${inputs[@]}"; do
    if [ -d "$a" ]; then
        while IFS= read -r f; do images+=("$f"); done < <(find "$a" -maxdepth 1 -type f \
            \( -iname '*.png' -o -iname '*.ppm' \) | sort)
    elif [ -f "$a" ]; then images+=("$a")
    else echo "compare-peers: $a: no such file or folder" >&2; exit 2; fi
done
[ ${#images[@]} -gt 0 ] || { echo "compare-peers: no images" >&2; exit 1; }

# codec: the commands it needs, and its Debian package (for versions and notes)
declare -A need=([openjpeg]="opj_compress opj_decompress" [libjpeg]="cjpeg djpeg"
    [libwebp]="cwebp dwebp" [libjxl]="cjxl djxl" [openjph]="ojph_compress ojph_expand")
declare -A pkg=([openjpeg]=libopenjp2-tools [libjpeg]=libjpeg-turbo-progs [libwebp]=webp
    [libjxl]=libjxl-tools [openjph]=openjph-tools)
CODECS=wcodec
notes=()
for c in openjpeg libjpeg libwebp libjxl openjph; do
    missing=""
    for cmd in ${need[$c]}; do command -v "$cmd" >/dev/null || missing="$missing $cmd"; done
    if [ -z "$missing" ]; then
        v=$(dpkg-query -W -f='${Version}' "${pkg[$c]}" 2>/dev/null || echo "version unknown")
        CODECS="$CODECS $c"; notes+=("- $c: ${pkg[$c]} $v")
    else
        echo "compare-peers: skipping $c:$missing not found (Debian package ${pkg[$c]})" >&2
        notes+=("- $c: skipped,$missing not installed (${pkg[$c]})")
    fi
done

mkdir -p "$OUT"
TMPROOT=$(mktemp -d)
trap 'rm -rf "$TMPROOT"' EXIT
export WCODEC RATES CODECS TMPROOT
echo "compare-peers: ${#images[@]} images x {$CODECS} x {$RATES} on $JOBS job(s)" >&2
start=$(date +%s)
mkdir -p "$TMPROOT/rows"
printf '%s\n' "${images[@]}" > "$TMPROOT/images.txt"
# One worker per image through xargs; each writes its own rows file, joined
# in image order below whatever order the workers finish in.
seq 0 $((${#images[@]} - 1)) | xargs -P "$JOBS" -I{} bash "$here/compare-peers.sh" --one {}
elapsed=$(($(date +%s) - start))

# ---- results ----------------------------------------------------------------------------

{
    echo "codec,image,target_bpp,setting,bytes,bpp,psnr_rgb,psnr_y,ssim"
    cat "$TMPROOT"/rows/*.csv
} > "$OUT/peers.csv"

# Means over images per codec and target, codecs in the order they ran.
awk -F, -v codecs="$CODECS" -v rates="$RATES" '
    NR > 1 { k = $1 SUBSEP $3; n[k]++; b[k] += $(NF-3); p[k] += $(NF-2); y[k] += $(NF-1)
             s[k] += $NF; if ($(NF-3) > $3 * 1.001) over[k]++ }
    END {
        print "codec,target_bpp,bpp,psnr_rgb,psnr_y,ssim,images,over_target"
        nc = split(codecs, c, " "); nr = split(rates, r, ",")
        for (i = 1; i <= nc; i++) for (j = 1; j <= nr; j++) {
            k = c[i] SUBSEP r[j]; if (!n[k]) continue
            printf "%s,%s,%.4f,%.3f,%.3f,%.4f,%d,%d\n", c[i], r[j], b[k] / n[k], p[k] / n[k],
                   y[k] / n[k], s[k] / n[k], n[k], over[k]
        }
    }' "$OUT/peers.csv" > "$OUT/peers-mean.csv"

"$WCODEC" plot "$OUT/peers-mean.csv" "$OUT/psnr.svg" --x bpp --y psnr_rgb --series codec \
    --title "PSNR (RGB) vs rate, mean over ${#images[@]} images" --xlabel "bits per pixel" \
    --ylabel "PSNR (dB)"
"$WCODEC" plot "$OUT/peers-mean.csv" "$OUT/ssim.svg" --x bpp --y ssim --series codec \
    --title "SSIM (luma) vs rate, mean over ${#images[@]} images" --xlabel "bits per pixel" \
    --ylabel "SSIM"

{
    echo "# wcodec and peer codecs"
    echo
    echo "${#images[@]} images from \`${inputs[*]}\`, targets $RATES bpp; $JOBS job(s), ${elapsed} s."
    echo
    echo "Each codec is brought to each target per image: wcodec (\`--bpp\`, DWT 9/7, Huffman) and"
    echo "OpenJPEG (\`-I -r\`, 9/7) by their own rate control; libjpeg-turbo (\`-quality\`, 4:2:0,"
    echo "\`-optimize\`), libwebp (\`-q\`, \`-m 6\`), libjxl (\`-d\`, effort 7) and OpenJPH"
    echo "(\`-qstep\`) by bisecting the setting to the best file at or under the target. *bpp* is"
    echo "the mean rate reached; *over* counts images where even the lowest setting is above the"
    echo "target. PSNR over RGB and SSIM on luma, from \`wcodec compare\` on the decoded images;"
    echo "means over images. Per-image rows: [peers.csv](peers.csv)."
    echo
    echo "| codec | target bpp | bpp | PSNR (dB) | PSNR-Y (dB) | SSIM | over |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $8 }' \
        "$OUT/peers-mean.csv"
    echo
    echo "![PSNR vs bpp](psnr.svg)"
    echo
    echo "![SSIM vs bpp](ssim.svg)"
    echo
    echo "Codecs:"
    echo
    echo "- wcodec: $("$WCODEC" --version)"
    printf '%s\n' "${notes[@]}"
} > "$OUT/peers.md"
echo "compare-peers: done in ${elapsed} s; results in $OUT" >&2
