#!/usr/bin/env bash
# cli_files.sh -- what the wcodec command does with the files it is given
# (issue 11): outputs are never partial and never replace anything but a
# regular file, never the input; '-' pipes both ways; signals leave no
# temporary file; hostile inputs are refused cheaply.
#   usage: cli_files.sh WCODEC DATA_DIR WORK_DIR
# ctest runs it (test cli_files). Each check prints what failed and the
# script exits 1 at the first failure.
set -uo pipefail
wcodec="$1" data="$2" work="$3"
. "$(dirname "$0")/cli_lib.sh" "$work"
no_temp_files() {
  local left
  left="$(find . -name '*.wcodec-tmp.*' | head -5)"
  [ -z "$left" ] || fail "$1: temporary files left behind: $left"
}

# A small image and its .wcx to work with.
expect 0 "" "$wcodec" decode -q "$data/small_gray.wcx" img.png
expect 0 "" "$wcodec" encode -q img.png img.wcx
cp img.wcx ref.wcx

# ---- '-' both ways ---------------------------------------------------------
"$wcodec" encode -q - - <img.png >pipe.wcx || fail "encode - -"
cmp -s pipe.wcx ref.wcx || fail "encode through pipes differs from encode of files"
"$wcodec" decode -q ref.wcx - | "$wcodec" encode -q - again.wcx || fail "decode to - | encode -"
cmp -s again.wcx ref.wcx || fail "decode to stdout, encode from stdin: not the same file"
"$wcodec" decode -q ref.wcx - --format pgm >img.pgm || fail "decode --format pgm to -"
head -c 2 img.pgm | grep -q P5 || fail "--format pgm did not write a PGM"
"$wcodec" encode ref.wcx - 2>summary.txt >/dev/null
grep -q "" summary.txt || true # the summary line goes to stderr when OUT is '-'

# ---- devices, FIFOs, sockets: written into, never replaced ----------------
expect 0 "" "$wcodec" encode -q img.png /dev/null
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
"$wcodec" encode -q img.png /dev/stdout >stdout.wcx || fail "encode to /dev/stdout"
cmp -s stdout.wcx ref.wcx || fail "encode to /dev/stdout wrote something else"
mkfifo fifo
cat fifo >from_fifo.wcx &
reader=$!
expect 0 "" "$wcodec" encode -q img.png fifo
wait "$reader"
[ -p fifo ] || fail "the FIFO was replaced"
cmp -s from_fifo.wcx ref.wcx || fail "the FIFO's reader got something else"
if [ "$(id -u)" = 0 ]; then
  mknod nullnode c 1 3 || fail "mknod"
  expect 0 "" "$wcodec" decode -q ref.wcx nullnode --format png
  [ -c nullnode ] || fail "a device node made with mknod was replaced by a regular file"
else
  echo "skipped: the device-node case needs root (mknod)"
fi

# ---- symbolic links: the target is written, the link stays -----------------
printf old >target.wcx
ln -s target.wcx link.wcx
expect 0 "" "$wcodec" encode -q img.png link.wcx
[ -L link.wcx ] || fail "the symlink was replaced"
cmp -s target.wcx ref.wcx || fail "the symlink's target was not written"
ln -s missing.wcx dangling.wcx
expect 0 "" "$wcodec" encode -q img.png dangling.wcx
[ -L dangling.wcx ] && [ -f missing.wcx ] || fail "a dangling symlink's target was not created"

# ---- an existing regular file keeps its mode; a read-only one stays -------
printf old >private.wcx
chmod 600 private.wcx
expect 0 "" "$wcodec" encode -q img.png private.wcx
[ "$(stat -c %a private.wcx)" = 600 ] || fail "mode 600 became $(stat -c %a private.wcx)"
cmp -s private.wcx ref.wcx || fail "private.wcx was not written"
printf keep >readonly.wcx
chmod 444 readonly.wcx
expect 2 "readonly.wcx: not replaced: the file is not writable \(mode 0444\)" \
  "$wcodec" encode img.png readonly.wcx
[ "$(cat readonly.wcx)" = keep ] || fail "a read-only output was replaced"
chmod 644 readonly.wcx

# ---- output == input, however spelled: refused before reading -------------
cp img.png same.png
for spelling in same.png ./same.png "$PWD/same.png" samelink.png hardlink.png; do
  [ -e samelink.png ] || ln -s same.png samelink.png
  [ -e hardlink.png ] || ln same.png hardlink.png
  expect 1 "is the input file" "$wcodec" encode same.png "$spelling"
  cmp -s same.png img.png || fail "encode onto its input ($spelling) changed it"
done
cp ref.wcx same.wcx
expect 1 "is the input file" "$wcodec" decode same.wcx ./same.wcx --format png
cmp -s same.wcx ref.wcx || fail "decode onto its input changed it"
expect 1 "is the input file" sh -c "'$wcodec' encode - - <same.png >>same.png"
cmp -s same.png img.png || fail "encode - - onto its redirected input changed it"

# ---- names up to the system's limit (the temporary name is shortened) -----
long="$(printf 'n%.0s' $(seq 251)).wcx" # 255 bytes
expect 0 "" "$wcodec" encode -q img.png "$long"
cmp -s "$long" ref.wcx || fail "a 255-byte output name was not written"
no_temp_files "long name"

# ---- hostile inputs: refused with a message, nothing written ---------------
expect 1 "not a wcodec file \(bad signature\)" "$wcodec" decode /dev/zero zero.png
[ ! -e zero.png ] || fail "decode /dev/zero wrote an output"
expect 1 "not a wcodec file \(bad signature\)" "$wcodec" info /dev/zero
"$wcodec" info - <ref.wcx | grep -q "^image: *9x7" || fail "info - did not read standard input"
# info says what the coding is: an entropy-4 file (a deflate stream a plane)
# has no code blocks; the others do.
golden="$data/../../golden"
"$wcodec" info "$golden/gray8_filtered.wcx" >info4.txt || fail "info of a filtered-deflate file failed"
grep -q "^entropy: *filtered deflate" info4.txt || fail "info did not name filtered deflate"
if grep -q "code blocks" info4.txt; then fail "info printed code blocks for filtered deflate"; fi
"$wcodec" info "$golden/rgb8_97_q60.wcx" | grep -q "code blocks [0-9]*x[0-9]*" ||
  fail "info lost the code blocks of a Huffman file"
# The 68-byte PNG of issue 11: IHDR 2147483647 x 1 RGB8, an 11-byte IDAT.
printf '\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x7f\xff\xff\xff' >big68.png
printf '\x00\x00\x00\x01\x08\x02\x00\x00\x00\x2f\x54\xa4\x8a\x00\x00\x00\x0b\x49\x44' >>big68.png
printf '\x41\x54\x78\x9c\x63\x60\x00\x00\x00\x02\x00\x01\x00\xf5\x48\x01\x83\x00' >>big68.png
printf '\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82' >>big68.png
[ "$(stat -c %s big68.png)" = 68 ] || fail "big68.png is not 68 bytes"
expect 1 "big68.png: PNG: truncated: 68 bytes cannot hold a 2147483647x1 image" \
  "$wcodec" encode big68.png big.wcx
expect 1 "over the memory limit of 8589934592" sh -c "cat big68.png | '$wcodec' encode - big.wcx"
[ ! -e big.wcx ] || fail "the 68-byte PNG left an output"

# ---- signals: no temporary file left, exit status 128+N --------------------
# A 64 MB image takes long enough to encode and to write that a signal
# lands mid-encode and, in the second run, while the temporary file exists.
# wcodec leaves a signal it was started with ignored as it is (nohup's
# SIGHUP, a background job's SIGINT), so the encodes here start with the
# three at their default (env --default-signal, coreutils 8.32+): whoever
# runs this script may ignore them.
defaults=(env --default-signal=INT,TERM,HUP) # execs the command: $! is its pid
{ printf 'P5\n8192 8192\n255\n'; head -c 67108864 /dev/urandom; } >noise.pgm
# signal_mid_encode SIG STATUS: the signal 0.3 s into an encode.
signal_mid_encode() {
  "${defaults[@]}" "$wcodec" encode -q noise.pgm sig.wcx &
  local pid=$!
  sleep 0.3
  kill -"$1" "$pid"
  wait "$pid"
  local rc=$?
  [ "$rc" = "$2" ] || fail "SIG$1 mid-encode: exit status $rc, expected $2"
  [ ! -e sig.wcx ] || fail "SIG$1 mid-encode left an output"
  no_temp_files "SIG$1 mid-encode"
}
signal_mid_encode INT 130
signal_mid_encode HUP 129
# An ignored SIGHUP (nohup) stays ignored: the encode finishes.
env --ignore-signal=HUP "$wcodec" encode -q noise.pgm nohup.wcx &
pid=$!
sleep 0.3
kill -HUP "$pid"
wait "$pid" || fail "an encode started with SIGHUP ignored did not finish: $?"
[ -s nohup.wcx ] || fail "an encode started with SIGHUP ignored wrote nothing"
caught=0
for try in 1 2 3 4 5; do
  "${defaults[@]}" "$wcodec" encode -q noise.pgm sig.wcx &
  pid=$!
  while kill -0 "$pid" 2>/dev/null && ! compgen -G '*.wcodec-tmp.*' >/dev/null; do :; done
  if compgen -G '*.wcodec-tmp.*' >/dev/null; then
    kill -TERM "$pid"
    wait "$pid"
    rc=$?
    [ "$rc" = 143 ] || fail "SIGTERM while writing: exit status $rc, expected 143"
    caught=1
    break
  fi
  wait "$pid"
  rm -f sig.wcx
done
[ "$caught" = 1 ] || fail "never saw the temporary file in 5 encodes"
[ ! -e sig.wcx ] || fail "SIGTERM while writing left an output"
no_temp_files "SIGTERM while writing"

no_temp_files "the end"
rm -f noise.pgm # 64 MB
echo "cli_files: all cases passed"
