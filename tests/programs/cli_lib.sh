# cli_lib.sh -- sourced by the cli_*.sh tests: a fresh work folder to run
# in, and the two checks they all make.
#   usage: . cli_lib.sh WORK_DIR

rm -rf "$1"
mkdir -p "$1"
cd "$1" || exit 1

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# expect RC PATTERN CMD...: runs CMD, checks its exit status and that its
# stderr matches PATTERN (grep -E; empty: anything).
expect() {
  local want="$1" pat="$2"
  shift 2
  "$@" >out.txt 2>err.txt
  local rc=$?
  [ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want: $(cat err.txt)"
  if [ -n "$pat" ] && ! grep -Eq "$pat" err.txt; then
    fail "'$*': stderr does not match '$pat': $(cat err.txt)"
  fi
}
