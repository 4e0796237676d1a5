#!/usr/bin/env bash
# cli_encode_rows.sh -- wcodec encode by rows (issue 15, --stream): the file is
# byte for byte the whole-image encode's for PNG (RGB, RGBA, 16-bit gray,
# metadata) and PGM/PPM inputs, lossless and lossy, DWT (both schemes),
# DCT and LOT;
# --max-memory below the whole image's need but above the rows' takes the
# rows path on its own; a truncated or damaged input exits 1 with a message naming the
# file and leaves no output; --verbose says the layout.
#   usage: cli_encode_rows.sh WCODEC IMAGE.png WORK_DIR
set -uo pipefail
wcodec="$1" image="$2" work="$3"
. "$(dirname "$0")/cli_lib.sh" "$work"
# same IN OPTS...: --stream and --no-stream give the same file.
same() {
  local in="$1"
  shift
  expect 0 "" "$wcodec" encode -q "$in" rows.wcx --stream "$@"
  expect 0 "" "$wcodec" encode -q "$in" whole.wcx --no-stream "$@"
  cmp -s rows.wcx whole.wcx || fail "$in $*: the rows encode differs from the whole one"
}

# Inputs of every kind, made by the command itself from the test image.
expect 0 "" "$wcodec" encode -q "$image" src.wcx
expect 0 "" "$wcodec" decode -q src.wcx rgb.png
expect 0 "" "$wcodec" decode -q src.wcx rgb.ppm
expect 0 "" "$wcodec" encode -q "$image" gray.wcx --levels 2
for opts in "" "--quality 70" "--step 6 --wavelet 53" "--levels 0" "--entropy deflate" \
  "--block 16 --levels 3" "--transform dct" "--transform dct --quality 40 --entropy deflate" \
  "--transform lot --step 8" "--transform lot --quality 90 --block 32" \
  "--dwt-scheme monolithic" "--dwt-scheme monolithic --quality 60"; do
  # shellcheck disable=SC2086
  same rgb.png $opts
  # shellcheck disable=SC2086
  same rgb.ppm $opts
done
# the rows path ran (not a quiet fallback to the whole image)
expect 0 "encoded by rows" "$wcodec" encode rgb.png rows.wcx --stream -v
expect 0 "encoded by rows" "$wcodec" encode rgb.ppm rows.wcx --stream -v
expect 0 "encoded by rows" "$wcodec" encode rgb.ppm rows.wcx --stream -v --transform dct
expect 0 "encoded by rows" "$wcodec" encode rgb.png rows.wcx --stream -v --transform lot
expect 0 "" "$wcodec" encode rgb.ppm rows.wcx --no-stream -v
grep -q "encoded by rows" err.txt && fail "--no-stream encoded by rows"
# to standard output: the same bytes, and the line counts them
"$wcodec" encode rgb.ppm - --stream >stdout.wcx 2>line.txt || fail "--stream to '-' failed"
expect 0 "" "$wcodec" encode -q rgb.ppm whole.wcx --no-stream
cmp -s stdout.wcx whole.wcx || fail "--stream to '-' differs"
grep -q -- "-> $(stat -c %s whole.wcx) bytes" line.txt || fail "--stream to '-': $(cat line.txt)"
# the automatic layout of a photograph is 5 levels either way, and says so
same rgb.png --levels auto
expect 0 "photograph layout" "$wcodec" encode "$image" rows.wcx --stream -v

# --max-memory between the two needs: the rows path on its own
expect 0 "" "$wcodec" encode -q rgb.ppm whole.wcx --no-stream
expect 1 "memory limit" "$wcodec" encode -q rgb.ppm lim.wcx --no-stream --max-memory 5000000
expect 0 "encoded by rows" "$wcodec" encode rgb.ppm lim.wcx --max-memory 5000000 -v
cmp -s lim.wcx whole.wcx || fail "--max-memory's rows encode differs"

# truncated inputs: exit 1, the file named, no output left
size=$(stat -c %s rgb.ppm)
head -c $((size - 1000)) rgb.ppm >cut.ppm
rm -f out.wcx
expect 1 "cut.ppm.*truncated" "$wcodec" encode -q cut.ppm out.wcx --stream
[ ! -e out.wcx ] || fail "a truncated PPM left an output"
ls ./*wcodec-tmp* >/dev/null 2>&1 && fail "a temporary file was left"
size=$(stat -c %s rgb.png)
head -c $((size / 2)) rgb.png >cut.png
expect 1 "cut.png" "$wcodec" encode -q cut.png out.wcx --stream
[ ! -e out.wcx ] || fail "a truncated PNG left an output"
ls ./*wcodec-tmp* >/dev/null 2>&1 && fail "a temporary file was left"
# a sample above maxval
printf 'P5\n4 2\n100\n' >bad.pgm
printf '\001\002\003\004\005\006\007\377' >>bad.pgm
expect 1 "bad.pgm.*maxval" "$wcodec" encode -q bad.pgm out.wcx --stream
[ ! -e out.wcx ] || fail "a bad PGM left an output"
echo "cli_encode_rows: all passed"
